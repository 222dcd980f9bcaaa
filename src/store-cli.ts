import type { Command } from 'commander';
import { examples, note, type CliKit } from './cli-text.js';

/** `switchboard secrets ...` and `switchboard db ...`: the store's key, schema and database. Their modules load only when a command runs. */
export function secretsCommand(secrets: Command, cli: CliKit): void {
  const { withCommon, withConfig, print } = cli;
  secrets.addHelpText('after', examples('switchboard secrets rotate'));
  withCommon(secrets.command('rotate'))
    .description('Re-encrypt every stored secret under a new key, in one transaction.')
    .option('--force', 'rotate even while a server using the store is running')
    .addHelpText('after', note('The new key goes to a new key file, or comes from SWITCHBOARD_NEW_SECRET_KEY when that is set.') + examples('switchboard secrets rotate', 'switchboard secrets rotate --sandbox'))
    .action(async (opts) => {
      const { rotateSecrets } = await import('./store/index.js');
      await withConfig(opts, async (config) => {
        const r = await rotateSecrets({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, secretKey: config.secretKey, newSecretKey: config.newSecretKey, force: opts.force });
        const dropped = r.salesCache ? ` Dropped ${r.salesCache} cached sales lookup(s), which were keyed with the old key.` : '';
        const subscriptions = r.subscriptions ? `, ${r.subscriptions} event subscription` : '';
        const counts = `Re-encrypted ${r.accounts} account, ${r.triggers} trigger${subscriptions} and ${r.hooks} webhook secret(s) under a new key, in one transaction.${dropped}`;
        if (r.newKeyIn === 'keyFile') return print(`${counts}\nThe new key is in ${r.keyFile} (the old key is gone); keep a backup of that file.`);
        print(
          `${counts}\nSet SWITCHBOARD_SECRET_KEY to the value of SWITCHBOARD_NEW_SECRET_KEY before starting Switchboard again.` +
            (r.staleKeyFile ? `\nThe key file ${r.staleKeyFile} holds the old key and is no longer used: delete it once SWITCHBOARD_SECRET_KEY is set.` : ''),
        );
      });
    });
}

export function dbCommand(db: Command, cli: CliKit): void {
  const { withCommon, withConfig, print } = cli;
  db.addHelpText('after', examples('switchboard db migrate', 'switchboard db backup --to switchboard-backup.db', 'PGPASSWORD=... switchboard db copy --to postgres://switchboard@db.internal:5432/switchboard'));
  withCommon(db.command('migrate'))
    .description("Apply the store's pending schema migrations once (safe while other instances do the same) and say what was done.")
    .addHelpText(
      'after',
      examples('switchboard db migrate', 'switchboard db migrate --sandbox', 'SWITCHBOARD_DATABASE_URL=postgres://USER:PASSWORD@HOST:5432/DATABASE switchboard db migrate'),
    )
    .action(async (opts) => {
      const { migrateCommand } = await import('./db-commands.js');
      await withConfig(opts, async (config) => print(await migrateCommand(config)), { standIns: false });
    });

  withCommon(db.command('backup'))
    .description("Copy the SQLite store to a file while servers may run (SQLite's online backup), secrets still encrypted; the key must be kept with it.")
    .requiredOption('--to <file>', 'the file to write; it must not exist yet')
    .option('--force', 'replace the file when it exists')
    .addHelpText('after', examples('switchboard db backup --to switchboard-backup.db', 'switchboard db backup --to /var/backups/switchboard.db --force'))
    .action(async (opts) => {
      const { backupCommand } = await import('./db-commands.js');
      await withConfig(opts, async (config) => print(await backupCommand(config, opts.to, opts.force === true)), { standIns: false });
    });

  withCommon(db.command('restore'))
    .description('Make a backup the store of a stopped or empty data directory, once it is checked whole and the current key opens its secrets; migrated when older.')
    .requiredOption('--from <file>', 'the backup, written by switchboard db backup')
    .option('--force', 'replace a store that holds accounts, triggers or events (never one a running server uses)')
    .addHelpText('after', examples('switchboard db restore --from switchboard-backup.db --data-dir /var/lib/switchboard'))
    .action(async (opts) => {
      const { restoreCommand } = await import('./db-commands.js');
      await withConfig(opts, async (config) => print(await restoreCommand(config, opts.from, opts.force === true)), { standIns: false });
    });

  db.command('copy')
    .description(
      "Copy the data dir's SQLite store (accounts, triggers, events, cursors, pending deliveries) into an empty PostgreSQL database, in one transaction.",
    )
    .requiredOption('--to <url>', 'the PostgreSQL database: postgres://USER@HOST:5432/DATABASE (PGPASSWORD keeps the password out of the process list)')
    .option('--data-dir <dir>', 'the data directory of the SQLite store to copy (env SWITCHBOARD_DATA_DIR)')
    .option('--sandbox', "copy the sandbox's own store (under the data directory) instead")
    .addHelpText(
      'after',
      note('Secrets stay encrypted: every instance on the PostgreSQL store needs the key of this data dir.') +
        examples('PGPASSWORD=... switchboard db copy --to postgres://switchboard@db.internal:5432/switchboard'),
    )
    .action(async (opts) => {
      const { copyCommand } = await import('./db-commands.js');
      await withConfig(opts, async (config) => print(await copyCommand(config, opts.to)), { standIns: false });
    });
}
