import type { Command } from 'commander';
import { examples, note, type CliKit } from '../cli-text.js';

/** `switchboard budgets`: each person's use of the budgets in the current windows, beside the policy's limits. */
export function budgetsCommand(budgets: Command, cli: CliKit): void {
  cli
    .withCommon(budgets)
    .option('--user <user>', "only this person's usage: id, login or address (switchboard users list)")
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      note("Counts this hour's provider requests and today's sales credits and emails (UTC); the limits come from the policy in force (switchboard policy show).") +
        examples('switchboard budgets', 'switchboard budgets --user ada@example.com --json'),
    )
    .action(async (opts) => {
      const { budgetsReport } = await import('./budget-report.js');
      await cli.withConfig(opts, async (config) => cli.print(await budgetsReport(config, { user: opts.user, json: opts.json === true })), { standIns: false, people: true });
    });
}
