import { close, constants, open } from "node:fs";
import { Code, NearwireError } from "@nearwire/core";
import { writeAll } from "./fd-io.js";
import { alignedForDirectIo, DIRECT_IO_ALIGN } from "./io-buffers.js";

/**
 * The `directWrites` option of a server or a download, checked: true when absent (whole batches
 * past the page cache), INVALID_ARGUMENT when it is not a boolean.
 */
export function directWritesOption(value: unknown): boolean {
  if (value === undefined) return true;
  if (typeof value !== "boolean")
    throw new NearwireError(
      Code.InvalidArgument,
      `directWrites ${JSON.stringify(value)} is not true or false`,
    );
  return value;
}

/**
 * The writes of a received file (the server's partial upload, the client's download part):
 * whole write batches go past the page cache through a second descriptor opened with
 * O_DIRECT, where the file system takes it; the rest (a batch at an unaligned position or of
 * an unaligned length: the file's tail, a resume from an unaligned offset) through the page
 * cache, on the file's own descriptor.
 *
 * Why: on a VM's ext4 the kernel's copy of written bytes into the page cache cost 1.5–1.8 s
 * of CPU per GiB here (1 GiB in 512 KiB writes, an fdatasync every 8 MiB, one core), against
 * 0.08 s with O_DIRECT, which also reached the disk sooner: 1.65–1.68 s against 2.47–2.69 s.
 * The written file is then not in the page cache: a reader right after reads the disk, as
 * `dd oflag=direct` leaves it. Durability is unchanged: an fdatasync or fsync of the file's
 * own descriptor covers both kinds of write.
 */
export class FileWrites {
  /** The O_DIRECT descriptor, -1 when there is none (off, or the file system refused it). */
  private direct = -1;
  /**
   * A write through it was refused (EINVAL): no write goes there any more. It stays open until
   * {@link close}, as another write may still be in flight on it.
   */
  private refused = false;
  /** Writes in flight: the O_DIRECT descriptor is closed only once none is. */
  private inFlight = 0;
  private onIdle: (() => void) | undefined;
  /** The {@link close} under way or done: every call gets this one. */
  private closing: Promise<void> | undefined;

  private constructor(private readonly fd: number) {}

  /**
   * Writes of the open file `fd` (left open: the caller closes it, after {@link close}). With
   * `direct`, the file is opened again with O_DIRECT through `/proc/self/fd` (the same open
   * file, never a path that could have been swapped); where that fails (tmpfs before Linux
   * 6.6, no /proc) every write goes through the page cache.
   */
  static open(fd: number, direct: boolean): Promise<FileWrites> {
    const w = new FileWrites(fd);
    if (!direct || constants.O_DIRECT === undefined) return Promise.resolve(w);
    return new Promise((resolve) => {
      open(`/proc/self/fd/${fd}`, constants.O_WRONLY | constants.O_DIRECT, (err, dfd) => {
        if (err === null) w.direct = dfd;
        resolve(w);
      });
    });
  }

  /** True while whole batches go past the page cache. */
  get isDirect(): boolean {
    return this.direct >= 0 && !this.refused;
  }

  /**
   * How many writes to have in flight at once (a chunk writer's `writesInFlight`): 2 past the
   * page cache, where a write waits for the disk (about 0.7 ms per 512 KiB here) and the next
   * one keeps it busy meanwhile; 1 through it, where a write is a copy on this core.
   */
  get writesInFlight(): number {
    return this.isDirect ? 2 : 1;
  }

  /**
   * Writes all of `data` at `pos`; `done` is called once, with the error or null, never before
   * this returns. A write the O_DIRECT descriptor refuses (EINVAL: a file system with a larger
   * block) is made again through the page cache, and every later one too.
   */
  write(data: Uint8Array, pos: number, done: (err: NodeJS.ErrnoException | null) => void): void {
    this.inFlight++;
    const end = (err: NodeJS.ErrnoException | null): void => {
      this.inFlight--;
      if (this.inFlight === 0 && this.onIdle !== undefined) this.onIdle();
      done(err);
    };
    if (
      !this.isDirect ||
      pos % DIRECT_IO_ALIGN !== 0 ||
      data.byteLength % DIRECT_IO_ALIGN !== 0 ||
      !alignedForDirectIo(data)
    ) {
      writeAll(this.fd, data, pos, end);
      return;
    }
    writeAll(this.direct, data, pos, (err) => {
      if (err?.code !== "EINVAL") return end(err);
      this.refused = true;
      writeAll(this.fd, data, pos, end);
    });
  }

  /**
   * Closes the O_DIRECT descriptor once no write is in flight (resolves when it is closed); the
   * file's own stays open. A second call gets the first one's promise.
   */
  close(): Promise<void> {
    this.closing ??= new Promise((resolve) => {
      const go = (): void => {
        this.onIdle = undefined;
        const dfd = this.direct;
        this.direct = -1;
        if (dfd >= 0) close(dfd, () => resolve());
        else resolve();
      };
      if (this.inFlight === 0) go();
      else this.onIdle = go;
    });
    return this.closing;
  }
}
