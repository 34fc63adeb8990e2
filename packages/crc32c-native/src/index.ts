export { crc32c, crc32cNativeImplementation } from "./crc32c.js";
