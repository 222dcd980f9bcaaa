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
