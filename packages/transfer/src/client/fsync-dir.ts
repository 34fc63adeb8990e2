import { open } from "node:fs/promises";

/** fsync a directory so a rename or a new entry in it survives a crash. */
export async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, "r");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
