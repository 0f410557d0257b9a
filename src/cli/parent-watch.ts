/**
 * Closing with the process that started the sandbox, where a launcher does not
 * pass a stop on (docs/decisions.md#d69-close-with-npm-exec). `npx
 * payments-sandbox` runs npm, which runs `sh -c payments-sandbox ...`, which
 * runs node: `kill $!` reaches npm, npm forwards SIGTERM to the shell, and a
 * shell that is not running `exec` (dash, Debian's and Ubuntu's sh) dies
 * without passing it on. The sandbox is left serving, its parent gone.
 */

/** How often the parent is looked at, in milliseconds: one getppid() each time. */
export const PARENT_CHECK_MS = 250;

/**
 * Whether the sandbox should close when its parent exits: when npm started it
 * in the foreground of a command that is the sandbox alone, `npx` or `npm
 * exec` (npm_command `exec`), or this package's own `npm start`. There the
 * parent (npm's shell, or npm) waits for the sandbox, so its exit means a
 * signal the sandbox never got. Elsewhere (nohup, a script that runs it in
 * the background and ends, a service manager) the parent is not watched.
 * @param env the environment npm gave the process (process.env)
 * @param ppid the parent's pid: 0 or 1 (no parent, or init) is never watched
 */
export function closesWithParent(env: NodeJS.ProcessEnv, ppid: number): boolean {
  if (ppid <= 1) return false;
  if (env.npm_command === 'exec') return true;
  return env.npm_lifecycle_event === 'start' && env.npm_package_name === 'payments-sandbox';
}

/**
 * Calls `onExit` once, when the process's parent changes (the parent exited
 * and the process was handed to init or a subreaper). The timer keeps no
 * event loop alive.
 * @param parent the parent's pid at start (process.ppid)
 * @param currentParent reads the parent's pid now (process.ppid reads it anew each time)
 * @returns a function that stops watching
 */
export function watchParent(onExit: () => void, parent = process.ppid, currentParent = () => process.ppid, everyMs = PARENT_CHECK_MS): () => void {
  const timer = setInterval(() => {
    if (currentParent() === parent) return;
    clearInterval(timer);
    onExit();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
