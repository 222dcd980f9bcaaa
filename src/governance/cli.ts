import type { Command } from 'commander';
import { examples, type CliKit } from '../cli-text.js';

/** `switchboard audit [...]`, `audit export`, `audit verify`. */
export function auditCommand(audit: Command, cli: CliKit): void {
  const run = (opts: Record<string, unknown>, action: Parameters<CliKit['withConfig']>[1]) => cli.withConfig(opts, action, { standIns: false, people: true });
  cli
    .withCommon(audit.command('list', { isDefault: true }))
    .description('The newest records of the audit trail (the default: switchboard audit takes these options too).')
    .option('--user <user>', 'only this person\'s records: id, login or address (switchboard users list), or "owner"')
    .option('--tool <name>', 'only calls of this tool')
    .option('--account <id>', 'only what used this account (its id: switchboard accounts list)')
    .option('--since <when>', 'only records since a date or time (2026-01-31, 2026-01-31T09:00Z) or a span back from now (30m, 12h, 7d)')
    .option('--limit <n>', 'at most this many, newest first (default 50)')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('switchboard audit', 'switchboard audit --user ada@example.com --since 7d', 'switchboard audit --tool outlook_send_email --json', 'switchboard audit verify'))
    .action(async (opts) => {
      const { formatAudit, listAudit } = await import('./audit-commands.js');
      await run(opts, async (config) => {
        const records = await listAudit(config, opts);
        cli.print(opts.json ? JSON.stringify(records, null, 2) : formatAudit(records));
      });
    });
  cli
    .withCommon(audit.command('export'))
    .description('Write the audit trail to standard output as NDJSON, oldest first, one record a line: for a SIEM or an archive.')
    .option('--since <when>', 'only records since a date or time, or a span back from now (7d)')
    .addHelpText('after', examples('switchboard audit export > audit.ndjson', 'switchboard audit export --since 1d'))
    .action(async (opts) => {
      const { exportAudit } = await import('./audit-commands.js');
      await run(opts, async (config) => {
        const count = await exportAudit(config, opts, (line) => process.stdout.write(line));
        cli.say(`${count} audit record(s) exported.`);
      });
    });
  cli
    .withCommon(audit.command('verify'))
    .description('Walk the audit chain and report the first record edited or removed (exit code 1), or that it is intact with a count.')
    .addHelpText('after', examples('switchboard audit verify'))
    .action(async (opts) => {
      const { formatVerification, verifyAudit } = await import('./audit-commands.js');
      await run(opts, async (config) => {
        const verified = await verifyAudit(config);
        cli.print(formatVerification(verified));
        if (!verified.intact) process.exitCode = 1;
      });
    });
}
