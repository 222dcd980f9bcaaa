/**
 * oidc-provider, loaded without the one line it prints on Node 20 ("Unsupported runtime"): Node 20 is this project's
 * supported runtime, and the tests run the provider on it. Only that exact warning (plain, or red on a terminal) is
 * dropped; any other passes.
 */
const NOTICE = 'oidc-provider WARNING: Unsupported runtime. Use Node.js v22.x LTS, or a later LTS release.';
const RED_NOTICE = `\u001b[31;1m${NOTICE}\u001b[0m`;

const warn = console.warn;
console.warn = (...args: unknown[]) => {
  if (args.length === 1 && (args[0] === NOTICE || args[0] === RED_NOTICE)) return;
  warn.apply(console, args);
};
const oidc = await import('oidc-provider').finally(() => (console.warn = warn));

export const { errors, interactionPolicy } = oidc;
export default oidc.default;
