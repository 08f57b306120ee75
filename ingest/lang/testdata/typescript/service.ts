import { Injectable } from "@angular/core";
import type { Repo } from "./repo";
import fs = require("fs");

/** A thing that can be saved. */
export interface Saveable<T> extends Base, Other.Thing {
  save(item: T): Promise<Result>;
  id: string;
}

export type ID = string | number;

export enum Color { Red, Green }

@Injectable()
export class UserService extends BaseService<User> implements Saveable<User>, Logger {
  private cache: Map<string, User> = new Map();
  repo = new UserRepo();

  constructor(private readonly db: Database, name?: string) {
    super(db);
  }

  /** Finds a user. */
  public async find(id: ID): Promise<User | null> {
    const u: User = await this.db.get(id);
    const r = createReport(u);
    this.log(u);
    return u;
  }

  find2(id: string): User;
  find2(id: number): User;
  find2(id: any): User { return this.repo.load(id); }

  protected log(msg: string): void {
    console.log(msg);
  }
}

export abstract class Shape {
  abstract area(): number;
}

namespace Util {
  export function clamp(n: number): number { return Math.min(n, 1); }
}

export function makeService(db: Database): UserService {
  return new UserService(db);
}
