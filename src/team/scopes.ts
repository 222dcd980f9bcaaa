/** The scope of a token that may use every tool. */
export const FULL_SCOPE = 'switchboard';
/** The scope of a token that may only list and call tools that change nothing (annotated readOnlyHint). */
export const READ_SCOPE = 'switchboard:read';
export const TEAM_SCOPES = [FULL_SCOPE, READ_SCOPE] as const;
/** A personal access token's scope unless asked: least privilege, so an agent that only reads cannot be made to change anything. */
export const DEFAULT_TOKEN_SCOPE = READ_SCOPE;
/** How long a personal access token works unless asked. */
export const DEFAULT_TOKEN_EXPIRY = '90d';

export const mayWrite = (scopes: readonly string[]) => scopes.includes(FULL_SCOPE);
export const mayRead = (scopes: readonly string[]) => mayWrite(scopes) || scopes.includes(READ_SCOPE);
