// The service the pool's workers serve, imported by both sides.
import { defineService, messageType, unary } from "@nearwire/core";

export const Greeter = defineService("example.Greeter", {
  say: unary(
    messageType<{ name: string }>("example.HelloRequest"),
    messageType<{ text: string; thread: number }>("example.HelloReply"),
  ),
});
