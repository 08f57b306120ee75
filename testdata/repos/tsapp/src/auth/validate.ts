/** Something that can authenticate a user. */
export interface IAuth {
  login(user: string, password: string): boolean;
}

/** Checks a user's credentials. */
export function validateUser(user: string, password: string): boolean {
  return user.length > 0 && password.length > 7;
}

export class AuthService implements IAuth {
  login(user: string, password: string): boolean {
    return validateUser(user, password);
  }
}

export enum Role {
  Admin,
  Guest,
}

export type UserId = string;
