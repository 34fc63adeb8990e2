/**
 * A service implementation may carry a method under this symbol; every nearwire server calls
 * it once when `close()` begins (before in-flight calls are drained), so a service can react to
 * the graceful close: the health service marks every status NOT_SERVING and ends its Watch
 * streams. The hook must not throw and must not block; its return value is ignored.
 */
export const onServerClose: unique symbol = Symbol.for("nearwire.onServerClose");

/** An implementation object that may carry an {@link onServerClose} hook. */
export interface ServerCloseAware {
  [onServerClose]?: () => void;
}

/** The hook of `impl`, if it has one. */
export function serverCloseHook(impl: unknown): (() => void) | undefined {
  if (typeof impl !== "object" || impl === null) return undefined;
  const hook = (impl as ServerCloseAware)[onServerClose];
  return typeof hook === "function" ? hook.bind(impl) : undefined;
}
