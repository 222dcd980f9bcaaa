export { startTeamAuth, type TeamAuth, type TeamAuthOptions } from './auth.js';
export { type TeamRule } from './allow.js';
export { type Caller, type Verified } from './resource.js';
export { FULL_SCOPE, READ_SCOPE, TEAM_SCOPES, mayRead, mayWrite } from './scopes.js';
