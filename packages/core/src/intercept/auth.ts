/** authInterceptor and bearerToken: an authorization check on the server, a token on clients. */
import { Code } from "../code.js";
import { NearwireError } from "../nearwire-error.js";
import type { CallRequest, Interceptor } from "./interceptor.js";

/**
 * Decides whether a call may run, from `request.metadata` (its headers), `request.peer` (uid,
 * gid, pid of a Unix-socket peer; a TLS client's certificate subject) and `request.path`:
 * true lets it run, false fails it PERMISSION_DENIED; throwing a NearwireError (for example
 * UNAUTHENTICATED when no credentials came) fails it with that error.
 */
export type Authorize = (request: CallRequest) => boolean | Promise<boolean>;

/**
 * A server interceptor that runs `authorize` before the handler (on a client it does nothing):
 * a refused call never reaches the handler, and the connection stays up.
 *
 * @example
 * ```ts
 * import { authInterceptor, Code, NearwireError } from "@nearwire/core";
 *
 * const auth = authInterceptor((req) => {
 *   if (req.peer?.uid === 0) return true; // root may call anything
 *   const token = req.metadata.authorization;
 *   if (token === undefined) throw new NearwireError(Code.Unauthenticated, "no token");
 *   return token === "Bearer s3cret" && !req.path.endsWith("/Shutdown");
 * });
 * // server.addService(Admin, impl, { codec, interceptors: [auth] })
 * ```
 */
export function authInterceptor(authorize: Authorize): Interceptor {
  return (next) => async (request) => {
    if (request.side === "server" && !(await authorize(request)))
      throw new NearwireError(Code.PermissionDenied, `not allowed to call ${request.path}`);
    return next(request);
  };
}

/**
 * A client interceptor that sends `authorization: Bearer <token>` with every call (on a server
 * it does nothing); `token` may be a function, called per call (a token that is refreshed).
 */
export function bearerToken(token: string | (() => string | Promise<string>)): Interceptor {
  return (next) => async (request) => {
    if (request.side === "client")
      request.metadata.authorization = `Bearer ${typeof token === "string" ? token : await token()}`;
    return next(request);
  };
}
