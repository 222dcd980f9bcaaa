// `npm run postgres`: a throwaway PostgreSQL server for trying Switchboard's PostgreSQL store, from the binaries the
// project already installs (test/postgres/cluster.js, as the tests start theirs). It prints the
// SWITCHBOARD_DATABASE_URL to use and stays in the foreground; Ctrl-C stops it and removes its data.
import postgres from 'postgres';
import { PostgresUnavailableError, startCluster } from './cluster.js';

const DATABASE = 'switchboard';

let cluster;
try {
  cluster = await startCluster();
  const admin = postgres(cluster.url(), { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end({ timeout: 1 });
  }
} catch (error) {
  await cluster?.stop();
  process.stderr.write(`${error instanceof PostgresUnavailableError ? error.message : `PostgreSQL could not be started: ${error.stack ?? error}`}\n`);
  process.exit(1);
}

process.stderr.write(
  `PostgreSQL is running on 127.0.0.1:${cluster.port}, its data in ${cluster.folder} (removed when it stops).\n` +
    'In another terminal, set this and run switchboard (e.g. switchboard db migrate, then switchboard serve):\n\n',
);
process.stdout.write(`export SWITCHBOARD_DATABASE_URL=${cluster.url(DATABASE)}\n`);
process.stderr.write('\nCtrl-C stops it and removes its data.\n');

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await cluster.stop();
  process.stderr.write(`PostgreSQL stopped; ${cluster.folder} is removed.\n`);
  process.exit(0);
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => void stop());
cluster.exited.then((code) => {
  if (stopping) return;
  // Ctrl-C in a terminal reaches the server too (one process group): it then stops cleanly, with code 0.
  if (code === 0) return void stop();
  stopping = true;
  process.stderr.write(`PostgreSQL stopped by itself (exit code ${code}); its data in ${cluster.folder} is removed.\n`);
  void cluster.stop().then(() => process.exit(1));
});
