/** createHealthService: grpc.health.v1.Health (Check, Watch) on any transport. */
import { Code } from "../code.js";
import type { Codec } from "../codec.js";
import { messageType } from "../codec.js";
import { NearwireError } from "../nearwire-error.js";
import { onServerClose } from "../server-close-hook.js";
import { defineService, serverStreaming, unary } from "../service.js";
import type { HandlerContext, ServiceImpl } from "../transport.js";
import {
  type HealthCheckRequest,
  type HealthCheckResponse,
  healthCodec,
  ServingStatus,
  type ServingStatusValue,
} from "./health-codec.js";

/** `grpc.health.v1.Health`: `Check` (unary) and `Watch` (server streaming). */
export const HealthDefinition = defineService("grpc.health.v1.Health", {
  Check: unary(
    messageType<HealthCheckRequest>("grpc.health.v1.HealthCheckRequest"),
    messageType<HealthCheckResponse>("grpc.health.v1.HealthCheckResponse"),
  ),
  Watch: serverStreaming(
    messageType<HealthCheckRequest>("grpc.health.v1.HealthCheckRequest"),
    messageType<HealthCheckResponse>("grpc.health.v1.HealthCheckResponse"),
  ),
});

/** Options of {@link createHealthService}. */
export interface HealthServiceOptions {
  /**
   * Initial statuses by service name (`package.Service`; `""` is the whole server). Default
   * `{ "": SERVING }`.
   */
  statuses?: Record<string, ServingStatusValue>;
}

/** A health service: add `definition` + `impl` with `codec` to any server, then set statuses. */
export interface HealthService {
  readonly definition: typeof HealthDefinition;
  /** The handlers; they also carry the server-close hook (statuses go NOT_SERVING). */
  readonly impl: ServiceImpl<typeof HealthDefinition>;
  /** {@link healthCodec}: the grpc.health.v1 protobuf wire format. */
  readonly codec: Codec;
  /** Sets the status of `service` (`""`: the whole server); Watch streams see the change. */
  setStatus(service: string, status: ServingStatusValue): void;
  /** The status of `service`, or undefined when it was never set. */
  status(service: string): ServingStatusValue | undefined;
  /**
   * Marks every known service NOT_SERVING, ignores later `setStatus` calls, and ends every
   * Watch stream after it has sent NOT_SERVING. Servers call this when `close()` begins.
   */
  shutdown(): void;
}

interface Watcher {
  readonly service: string;
  wake(): void;
}

/**
 * The gRPC health checking protocol (`grpc.health.v1.Health`) as a plain nearwire service, so
 * it runs on every transport:
 *
 * - `Check` answers the status of the named service, or NOT_FOUND when it has none.
 * - `Watch` sends the current status (SERVICE_UNKNOWN when there is none), then every change,
 *   until the caller cancels or the server closes.
 * - When the server's `close()` begins (grpc-uds and every transport on the core RPC server
 *   call the hook), every status becomes NOT_SERVING: Watch streams send it and then end, so
 *   they do not hold the graceful close for its whole grace period.
 */
export function createHealthService(options: HealthServiceOptions = {}): HealthService {
  const statuses = new Map<string, ServingStatusValue>(
    Object.entries(options.statuses ?? { "": ServingStatus.SERVING }),
  );
  const watchers = new Set<Watcher>();
  let shutDown = false;

  function notify(service: string): void {
    for (const w of watchers) if (w.service === service) w.wake();
  }

  async function* watch(
    request: HealthCheckRequest,
    ctx: HandlerContext,
  ): AsyncIterable<HealthCheckResponse> {
    const { service } = request;
    let wake: (() => void) | undefined;
    let pending = true;
    const watcher: Watcher = {
      service,
      wake() {
        pending = true;
        wake?.();
      },
    };
    const onAbort = () => wake?.();
    watchers.add(watcher);
    ctx.signal.addEventListener("abort", onAbort);
    try {
      let last: ServingStatusValue | undefined;
      while (!ctx.signal.aborted) {
        if (pending) {
          pending = false;
          const current = statuses.get(service) ?? ServingStatus.SERVICE_UNKNOWN;
          if (current !== last) {
            last = current;
            yield { status: current };
          }
          if (shutDown) return;
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    } finally {
      watchers.delete(watcher);
      ctx.signal.removeEventListener("abort", onAbort);
    }
  }

  const impl = {
    Check({ service }: HealthCheckRequest): HealthCheckResponse {
      const status = statuses.get(service);
      if (status === undefined) {
        throw new NearwireError(Code.NotFound, `unknown service "${service}"`);
      }
      return { status };
    },
    Watch: watch,
    [onServerClose]: () => health.shutdown(),
  };

  const health: HealthService = {
    definition: HealthDefinition,
    impl,
    codec: healthCodec,
    setStatus(service, status) {
      if (shutDown || statuses.get(service) === status) return;
      statuses.set(service, status);
      notify(service);
    },
    status(service) {
      return statuses.get(service);
    },
    shutdown() {
      if (shutDown) return;
      for (const service of statuses.keys()) statuses.set(service, ServingStatus.NOT_SERVING);
      shutDown = true;
      for (const w of watchers) w.wake();
    },
  };
  return health;
}
