import { AuthService } from "./auth/validate";

const handleLogin = (user: string, password: string): boolean => {
  const svc = new AuthService();
  return svc.login(user, password);
};

export default handleLogin;
