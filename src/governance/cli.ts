import type { Command } from 'commander';
import { examples, note, type CliKit } from '../cli-text.js';

/** `switchboard policy ...`: the governance policy in force. Its modules load only when a command runs. */
export function policyCommand(policy: Command, cli: CliKit): void {
  policy.addHelpText('after', examples('switchboard policy show', 'switchboard policy set policy.json', 'switchboard policy clear'));
  cli
    .withCommon(policy.command('show'))
    .description('Print the policy in force (approvals, budgets, tools per person) and where it comes from: SWITCHBOARD_POLICY\'s file, or the store.')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('switchboard policy show', 'switchboard policy show --json'))
    .action(async (opts) => {
      const { formatPolicy, showPolicy } = await import('./commands.js');
      await cli.withConfig(opts, async (config) => {
        const shown = await showPolicy(config);
        cli.print(opts.json ? JSON.stringify(shown, null, 2) : formatPolicy(shown));
      }, { standIns: false });
    });
  cli
    .withCommon(policy.command('set'))
    .description('Check the policy in FILE and store it: every instance on this store applies it within seconds. Prints what changed.')
    .argument('<file>', 'a policy file (JSON; docs/governance.md shows the format)')
    .addHelpText('after', note('Refused while SWITCHBOARD_POLICY names a file: that file is then the policy.') + examples('switchboard policy set policy.json'))
    .action(async (file: string, opts) => {
      const { setPolicy } = await import('./commands.js');
      await cli.withConfig(opts, async (config) => cli.print(await setPolicy(config, file)), { standIns: false });
    });
  cli
    .withCommon(policy.command('clear'))
    .description('Remove the stored policy: no call needs approval, no budget, every tool.')
    .addHelpText('after', examples('switchboard policy clear'))
    .action(async (opts) => {
      const { clearPolicy } = await import('./commands.js');
      await cli.withConfig(opts, async (config) => cli.print(await clearPolicy(config)), { standIns: false });
    });
}

/** `switchboard approvals ...`: calls waiting for a person's yes, decided by the operator. */
export function approvalsCommand(approvals: Command, cli: CliKit): void {
  approvals
    .option('--json', 'print JSON')
    .addHelpText('after', examples('switchboard approvals', 'switchboard approvals approve apr_0123456789abcdef01234567', 'switchboard approvals deny apr_0123456789abcdef01234567 --reason "not to customers"'));
  cli.withCommon(approvals);
  approvals.action(async (opts) => {
    const { formatApprovals, listApprovals } = await import('./commands.js');
    await cli.withConfig(opts, async (config) => {
      const list = await listApprovals(config);
      cli.print(opts.json ? JSON.stringify(list, null, 2) : formatApprovals(list));
    }, { standIns: false });
  });
  const decision = (name: 'approve' | 'deny', description: string) => {
    const command = cli
      .withCommon(approvals.command(name))
      .description(description)
      .argument('<id>', 'the approval (switchboard approvals lists them)');
    if (name === 'deny') command.option('--reason <text>', 'told to the agent with the refusal');
    command.addHelpText('after', examples(`switchboard approvals ${name} apr_0123456789abcdef01234567`)).action(async (id: string, opts) => {
      const { decide } = await import('./commands.js');
      await cli.withConfig(opts, async (config) => {
        const decided = await decide(config, id, name === 'approve', opts.reason);
        cli.print(name === 'approve' ? `Approved ${decided.id}: the agent's next ${decided.tool} call with the same arguments runs, once.` : `Denied ${decided.id}: the agent's next such call learns it was denied.`);
      }, { standIns: false });
    });
  };
  decision('approve', "Approve a waiting call: the agent's next call of that tool with the same arguments runs, once.");
  decision('deny', "Deny a waiting call: the agent's next such call is refused, saying so.");
}

/** `switchboard audit [...]`, `audit export`, `audit verify`. */
export function auditCommand(audit: Command, cli: CliKit): void {
  audit.addHelpText('after', examples('switchboard audit --since 1d', 'switchboard audit export > audit.ndjson', 'switchboard audit verify'));
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
