/**
 * Makes sure the settings app's browser tests have a Chromium: Debian's package when it is
 * missing and we may install it (root with apt-get). Without one, test/e2e/web.test.ts fails
 * with the command to run; nothing here fails the suite by itself.
 */
import { existsSync } from "node:fs";

const path = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(path) && process.getuid?.() === 0 && existsSync("/usr/bin/apt-get")) {
  process.stderr.write("Chromium is missing: installing Debian's chromium package for the browser tests...\n");
  const install = Bun.spawnSync(["apt-get", "install", "-y", "--no-install-recommends", "chromium"], { stdout: "ignore", stderr: "pipe" });
  if (install.exitCode !== 0) {
    const update = Bun.spawnSync(["apt-get", "update"], { stdout: "ignore", stderr: "ignore" });
    const retry =
      update.exitCode === 0
        ? Bun.spawnSync(["apt-get", "install", "-y", "--no-install-recommends", "chromium"], { stdout: "ignore", stderr: "pipe" })
        : install;
    if (retry.exitCode !== 0) process.stderr.write(`could not install chromium: ${retry.stderr.toString().trim().split("\n").at(-1) ?? ""}\n`);
  }
}
