/**
 * Authentication middleware for the public API gateway.
 *
 * Verifies bearer tokens issued by the identity service, attaches the decoded
 * claims to the request and enforces role-based access on protected routes.
 */

import { createHash } from "crypto";
import type { NextFunction, Request, Response } from "express";
import { JwksClient } from "./jwks";
import { Logger, createLogger } from "./logging";
import * as metrics from "./metrics";

/** Claims we rely on from a verified access token. */
export interface TokenClaims {
  sub: string;
  iss: string;
  aud: string | string[];
  exp: number;
  iat: number;
  scope?: string;
  roles: Role[];
  tenantId?: string;
}

/** Options accepted by {@link AuthMiddleware}. */
export interface AuthOptions {
  issuer: string;
  audience: string;
  jwksUrl: string;
  /** Allowed clock skew in seconds when checking `exp` and `iat`. */
  clockToleranceSec?: number;
  /** How long verified tokens stay in the local cache, in milliseconds. */
  cacheTtlMs?: number;
  publicPaths?: string[];
}

/** Roles known to the gateway, ordered from least to most privileged. */
export enum Role {
  Viewer = "viewer",
  Editor = "editor",
  Admin = "admin",
}

/** Result of an authorization check, either allowed or with a reason. */
export type AuthResult =
  | { ok: true; claims: TokenClaims }
  | { ok: false; status: 401 | 403; reason: string };

type CacheEntry<T> = { value: T; expiresAt: number };

/**
 * A tiny TTL cache. Generic so it can also hold JWKS keys.
 */
class TtlCache<K, V> {
  private readonly entries = new Map<K, CacheEntry<V>>();

  constructor(private readonly ttlMs: number, private readonly maxSize = 10_000) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt < Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    if (this.entries.size >= this.maxSize) {
      const oldest = this.entries.keys().next().value as K;
      this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
  }
}

const ROLE_RANK: Record<Role, number> = {
  [Role.Viewer]: 0,
  [Role.Editor]: 1,
  [Role.Admin]: 2,
};

export class AuthMiddleware {
  private readonly jwks: JwksClient;
  private readonly cache: TtlCache<string, TokenClaims>;
  private readonly log: Logger;
  private readonly clockTolerance: number;

  /**
   * @param options issuer, audience and JWKS location for token verification
   * @param logger optional logger; defaults to a child logger named "auth"
   */
  constructor(private readonly options: AuthOptions, logger?: Logger) {
    this.jwks = new JwksClient(options.jwksUrl, { refreshIntervalMs: 10 * 60 * 1000 });
    this.cache = new TtlCache<string, TokenClaims>(options.cacheTtlMs ?? 30_000);
    this.log = logger ?? createLogger("auth");
    this.clockTolerance = options.clockToleranceSec ?? 30;
  }

  /**
   * Verify a raw bearer token and return its claims.
   *
   * @throws Error when the signature, issuer, audience or expiry is invalid
   */
  async validateToken(token: string): Promise<TokenClaims> {
    const cacheKey = createHash("sha256").update(token).digest("hex");
    const cached = this.cache.get(cacheKey);
    if (cached) {
      metrics.increment("auth.cache_hit");
      return cached;
    }

    const claims = await this.jwks.verify<TokenClaims>(token);
    const now = Math.floor(Date.now() / 1000);

    if (claims.iss !== this.options.issuer) {
      throw new Error(`unexpected issuer ${claims.iss}`);
    }
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.includes(this.options.audience)) {
      throw new Error("token not intended for this audience");
    }
    if (claims.exp + this.clockTolerance < now) {
      throw new Error("token expired");
    }
    if (claims.iat - this.clockTolerance > now) {
      throw new Error("token issued in the future");
    }

    this.cache.set(cacheKey, claims);
    metrics.increment("auth.verified");
    return claims;
  }

  /** Check that the claims grant at least `required`. */
  authorize(claims: TokenClaims, required: Role): AuthResult {
    const best = Math.max(-1, ...claims.roles.map((r) => ROLE_RANK[r] ?? -1));
    if (best < ROLE_RANK[required]) {
      return { ok: false, status: 403, reason: `requires role ${required}` };
    }
    return { ok: true, claims };
  }

  /** Express handler factory: `app.use(auth.handler(Role.Editor))`. */
  handler(required: Role = Role.Viewer) {
    return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
      if (this.options.publicPaths?.some((p) => req.path.startsWith(p))) {
        return next();
      }
      const token = extractBearer(req.headers.authorization);
      if (!token) {
        res.status(401).json({ error: "missing bearer token" });
        return;
      }
      try {
        const claims = await this.validateToken(token);
        const result = this.authorize(claims, required);
        if (!result.ok) {
          res.status(result.status).json({ error: result.reason });
          return;
        }
        (req as Request & { auth?: TokenClaims }).auth = claims;
        next();
      } catch (err) {
        this.log.warn("token rejected", { path: req.path, error: (err as Error).message });
        metrics.increment("auth.rejected");
        res.status(401).json({ error: "invalid token" });
      }
    };
  }
}

/**
 * Pull the token out of an `Authorization: Bearer <token>` header.
 * Returns `undefined` for any other scheme.
 */
export const extractBearer = (header?: string): string | undefined => {
  if (!header) return undefined;
  const [scheme, value] = header.split(" ", 2);
  return scheme?.toLowerCase() === "bearer" && value ? value.trim() : undefined;
};

/** Pick the first defined value, typed by the caller. */
export const firstDefined = <T>(...values: Array<T | undefined>): T | undefined =>
  values.find((v): v is T => v !== undefined);
