// Preloaded (NODE_OPTIONS=--require) into the controller and the UI that `npm run dev` runs:
// should dev die without stopping them (SIGKILL, a crash), they are handed to another parent;
// then they stop as on SIGTERM, so a dead dev leaves no controller serving the cluster.
export {};

const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.kill(process.pid, 'SIGTERM');
}, 1000).unref();
