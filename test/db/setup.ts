/**
 * Preloaded by `bun test` (bunfig.toml): the suite runs every file in one process, and the guard
 * must be in place before the first child with extra stdio pipes (Playwright's Chromium) is spawned,
 * or a later garbage collection closes descriptors an embedded database holds by then.
 */
import { guardChildProcessPipes } from "../../src/db/child-process-guard";

guardChildProcessPipes();
