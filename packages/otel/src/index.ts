export type { OtelInterceptorOptions } from "./otel-interceptor.js";
export { otelInterceptor } from "./otel-interceptor.js";
