// Under npm (`npm start`, `npx mockyard`) the server runs below an `sh -c` that npm signals on
// SIGTERM; the shell dies without passing the signal on and the server would keep listening,
// adopted by init. Losing that parent is taken as the signal itself.

/** Calls `onLost` once the parent process is gone; only when started by npm run-script or npx. */
export function watchParent(onLost: () => void, env: NodeJS.ProcessEnv = process.env, intervalMs = 250): () => void {
  if (env.npm_lifecycle_event === undefined) return () => {};
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onLost();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
