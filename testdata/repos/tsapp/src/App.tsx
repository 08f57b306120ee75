import handleLogin from "./index";

export function App(props: { user: string }) {
  return <button onClick={() => handleLogin(props.user, "secret123")}>Login</button>;
}
