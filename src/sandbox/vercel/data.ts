import type { VercelDeployment, VercelDomain, VercelEnv, VercelProject, VercelState, VercelTeam } from './state.js';
import { hexId } from '../util.js';

/** Sample Vercel account: user sbx-vercel with a personal project, team `team_sbx` with a team project. */

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

export const USER_ID = 'sbxVercelUser00000000001';
const DEV_ID = 'sbxVercelUser00000000002';
const VIEWER_ID = 'sbxVercelUser00000000003';
const STRANGER_ID = 'sbxVercelUser00000000009';

export function seedVercel(now: number): Omit<VercelState, 'tokens' | 'rateLimit' | 'seq' | 'webhooks' | 'deliveries' | 'pending'> {
  const user = {
    id: USER_ID,
    email: 'sbx-vercel@sbx.example',
    name: 'Sandbox Vercel',
    username: 'sbx-vercel',
    avatar: null,
    defaultTeamId: null,
    createdAt: now - 400 * DAY,
    softBlock: null,
    billing: { plan: 'hobby', period: null, trial: null, cancelation: null, addons: null },
    resourceConfig: { concurrentBuilds: 1 },
    stagingPrefix: 'sbx-vercel',
    hasTrialAvailable: true,
  };
  const member = (uid: string, username: string, role: string, joined: number) => ({
    uid,
    username,
    name: username.replace('sbx-', 'Sandbox ').replace(/\b\w/g, (c) => c.toUpperCase()),
    email: `${username}@sbx.example`,
    role,
    confirmed: true,
    createdAt: now - joined * DAY,
    avatar: null,
    github: { login: username },
    joinedFrom: { origin: 'mail' },
  });
  const teams: VercelTeam[] = [
    {
      id: 'team_sbx',
      slug: 'sbx-team',
      name: 'Sandbox Team',
      avatar: null,
      createdAt: now - 300 * DAY,
      creatorId: USER_ID,
      members: [member(USER_ID, 'sbx-vercel', 'OWNER', 300), member(DEV_ID, 'sbx-dev', 'MEMBER', 120), member(VIEWER_ID, 'sbx-viewer', 'VIEWER', 30)],
    },
    {
      id: 'team_other',
      slug: 'someone-else',
      name: 'Someone Else Inc',
      avatar: null,
      createdAt: now - 200 * DAY,
      creatorId: STRANGER_ID,
      members: [member(STRANGER_ID, 'sbx-stranger', 'OWNER', 200)],
    },
  ];
  const env = (key: string, value: string, type: VercelEnv['type'], target: VercelEnv['target'], age: number, gitBranch?: string): VercelEnv => ({
    id: 'env_' + hexId(`${key}${target.join()}`, 16),
    key,
    value,
    type,
    target,
    gitBranch,
    comment: '',
    configurationId: null,
    createdAt: now - age * DAY,
    updatedAt: now - age * DAY,
    createdBy: USER_ID,
    updatedBy: null,
  });
  const projectDomain = (name: string, projectId: string, age: number, redirect: string | null = null) => ({
    name,
    apexName: name.endsWith('.vercel.app') ? name : name.split('.').slice(-2).join('.'),
    projectId,
    redirect,
    redirectStatusCode: redirect ? 308 : null,
    gitBranch: null,
    customEnvironmentId: null,
    updatedAt: now - age * DAY,
    createdAt: now - age * DAY,
    verified: true,
  });
  const projects: VercelProject[] = [
    {
      id: 'prj_sbxHelloWorld0000000001',
      name: 'hello-world',
      accountId: USER_ID,
      framework: 'nextjs',
      buildCommand: null,
      installCommand: null,
      outputDirectory: null,
      rootDirectory: null,
      nodeVersion: '20.x',
      createdAt: now - 90 * DAY,
      updatedAt: now - 2 * DAY,
      link: { type: 'github', repo: 'hello-world', org: 'sbx-octocat', repoId: 500001, productionBranch: 'main', createdAt: now - 90 * DAY, updatedAt: now - 90 * DAY, deployHooks: [], gitCredentialId: '', sourceless: true },
      env: [
        env('API_URL', 'https://api.hello.sbx.example', 'plain', ['production', 'preview', 'development'], 80),
        env('DATABASE_URL', 'postgres://app:s3cret@db.sbx.example:5432/hello', 'encrypted', ['production'], 60),
        env('FEATURE_GREETING', 'on', 'plain', ['preview'], 3, 'feature/greeting'),
      ],
      domains: [],
    },
    {
      id: 'prj_sbxPlatformWeb00000001',
      name: 'platform-web',
      accountId: 'team_sbx',
      framework: 'nextjs',
      buildCommand: 'npm run build',
      installCommand: 'npm ci',
      outputDirectory: null,
      rootDirectory: 'web',
      nodeVersion: '20.x',
      createdAt: now - 150 * DAY,
      updatedAt: now - 1 * DAY,
      link: { type: 'github', repo: 'platform', org: 'sbx-org', repoId: 500003, productionBranch: 'main', createdAt: now - 150 * DAY, updatedAt: now - 150 * DAY, deployHooks: [], gitCredentialId: '', sourceless: true },
      env: [
        env('NEXT_PUBLIC_SITE_URL', 'https://platform.sbx-org.example', 'plain', ['production'], 140),
        env('STRIPE_SECRET_KEY', 'sk_test_sandbox_0000', 'sensitive', ['production'], 100),
      ],
      domains: [],
    },
  ];
  projects[0]!.domains = [
    projectDomain('hello-world-sbx.vercel.app', projects[0]!.id, 90),
    projectDomain('hello.sbx.example', projects[0]!.id, 85),
    projectDomain('www.hello.sbx.example', projects[0]!.id, 85, 'hello.sbx.example'),
  ];
  projects[1]!.domains = [projectDomain('platform-web-sbx-team.vercel.app', projects[1]!.id, 150), projectDomain('platform.sbx-org.example', projects[1]!.id, 140)];

  const deployment = (
    n: number,
    project: VercelProject,
    ago: number,
    readyState: VercelDeployment['readyState'],
    target: 'production' | null,
    branch: string,
    message: string,
    extra: Partial<VercelDeployment> = {},
  ): VercelDeployment => {
    const createdAt = now - ago;
    const slug = project.accountId === USER_ID ? 'sbx-vercel' : 'sbx-team';
    const uid = 'dpl_' + hexId(`sbx-deployment-${n}`, 28).replace(/[0-9]/g, (d) => 'ABCDEFGHIJ'[Number(d)]!);
    return {
      uid,
      name: project.name,
      url: `${project.name}-${hexId(uid, 9)}-${slug}.vercel.app`,
      projectId: project.id,
      ownerId: project.accountId,
      createdAt,
      buildingAt: readyState === 'QUEUED' ? null : createdAt + 4_000,
      ready: readyState === 'READY' ? createdAt + 65_000 : null,
      readyState,
      target,
      creatorUid: USER_ID,
      source: 'git',
      aliases: [],
      gitSource: { type: 'github', ref: branch, sha: hexId(`sha-${n}`, 40), repoId: project.link!.repoId, org: project.link!.org, repo: project.link!.repo },
      meta: {
        githubCommitAuthorName: 'Sandbox Octocat',
        githubCommitMessage: message,
        githubCommitOrg: project.link!.org,
        githubCommitRef: branch,
        githubCommitRepo: project.link!.repo,
        githubCommitSha: hexId(`sha-${n}`, 40),
        githubDeployment: '1',
        githubOrg: project.link!.org,
        githubRepo: project.link!.repo,
      },
      errorCode: null,
      errorMessage: null,
      canceledAt: null,
      ...extra,
    };
  };
  const [hello, web] = projects as [VercelProject, VercelProject];
  const deployments: VercelDeployment[] = [
    deployment(1, hello, 2 * DAY, 'READY', 'production', 'main', 'Document usage', { aliases: ['hello-world-sbx.vercel.app', 'hello.sbx.example'] }),
    deployment(2, hello, 1 * DAY, 'READY', null, 'feature/greeting', 'Let the greeting take a name'),
    deployment(3, hello, 20 * HOUR, 'ERROR', null, 'docs', 'Add contributing guide', { errorCode: 'BUILD_FAILED', errorMessage: 'Command "npm run build" exited with 1' }),
    deployment(4, hello, 10 * HOUR, 'CANCELED', null, 'feature/greeting', 'Try a faster build', { canceledAt: now - 10 * HOUR + 20_000 }),
    deployment(5, hello, 10 * MIN, 'BUILDING', 'production', 'main', 'Bump dependencies'),
    deployment(6, hello, 2 * MIN, 'QUEUED', null, 'docs', 'Fix typo in README'),
    deployment(7, web, 3 * DAY, 'READY', 'production', 'main', 'Launch pricing page', { aliases: ['platform-web-sbx-team.vercel.app', 'platform.sbx-org.example'] }),
    deployment(8, web, 5 * HOUR, 'ERROR', null, 'staging', 'Wire up Stripe', { errorCode: 'BUILD_FAILED', errorMessage: 'Type error: Property "price" does not exist' }),
    deployment(9, web, 30 * MIN, 'BUILDING', null, 'staging', 'Fix Stripe types'),
  ];

  const domain = (name: string, ownerId: string, age: number): VercelDomain => ({
    id: 'dom_' + hexId(name, 20),
    name,
    ownerId,
    serviceType: 'zeit.world',
    echMode: 'auto',
    nameservers: ['ns1.vercel-dns.com', 'ns2.vercel-dns.com'],
    intendedNameservers: ['ns1.vercel-dns.com', 'ns2.vercel-dns.com'],
    customNameservers: [],
    creator: { id: USER_ID, username: 'sbx-vercel', email: user.email, customerId: null, isDomainReseller: false },
    createdAt: now - age * DAY,
    boughtAt: now - age * DAY,
    expiresAt: now + (365 - age) * DAY,
    verified: true,
    renew: true,
    userId: USER_ID,
    teamId: ownerId.startsWith('team_') ? ownerId : null,
  });
  const domains = [domain('sbx.example', USER_ID, 120), domain('platform.sbx-org.example', 'team_sbx', 140)];

  return { user, teams, projects, deployments, domains };
}
