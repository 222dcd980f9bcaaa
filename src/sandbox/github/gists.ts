import type { Routes, SandboxRequest, SandboxResponse } from '../server.js';
import type { GithubState } from './state.js';
import { GhError, ctxOf, list, notFound, nowIso, simpleUser, validationFailed, type Ctx } from './render.js';
import { hexId, isObject, sha1 } from '../util.js';

/** Gists: create, read, edit (content, rename, delete files), list for the user or anyone, with Link paging. */

export interface GhGist {
  id: string;
  owner: string;
  description: string | null;
  public: boolean;
  /** File name → content, in the order GitHub shows them (sorted by name). */
  files: Record<string, string>;
  created_at: string;
  updated_at: string;
}

const DOC = {
  create: 'https://docs.github.com/rest/gists/gists#create-a-gist',
  update: 'https://docs.github.com/rest/gists/gists#update-a-gist',
  get: 'https://docs.github.com/rest/gists/gists#get-a-gist',
};

const stores = new WeakMap<GithubState, GhGist[]>();

/** The gists of a sandbox (kept beside its state, seeded on first use). */
export function gistsOf(state: GithubState): GhGist[] {
  let gists = stores.get(state);
  if (!gists) {
    gists = seedGists();
    stores.set(state, gists);
  }
  return gists;
}

function seedGists(): GhGist[] {
  const gist = (n: number, owner: string, isPublic: boolean, description: string, files: Record<string, string>, at: string): GhGist => ({
    id: hexId(`gist-${n}`, 32),
    owner,
    description,
    public: isPublic,
    files,
    created_at: at,
    updated_at: at,
  });
  return [
    gist(1, 'sbx-octocat', true, 'Hello world in three languages', { 'hello.js': "console.log('Hello');\n", 'hello.py': "print('Hello')\n", 'hello.rb': "puts 'Hello'\n" }, '2025-01-05T10:00:00Z'),
    gist(2, 'sbx-octocat', false, 'Deploy checklist', { 'checklist.md': '- [ ] tag\n- [ ] release notes\n' }, '2025-02-14T09:30:00Z'),
    gist(3, 'sbx-octocat', true, 'Shell aliases', { '.bashrc': "alias gs='git status'\n" }, '2025-03-01T18:00:00Z'),
    gist(4, 'sbx-hubot', true, 'Robot haiku', { 'haiku.txt': 'beep boop beep\n' }, '2025-02-01T12:00:00Z'),
  ];
}

const LANGUAGES: Record<string, [string, string]> = {
  js: ['JavaScript', 'application/javascript'],
  ts: ['TypeScript', 'video/MP2T'],
  py: ['Python', 'application/x-python'],
  rb: ['Ruby', 'application/x-ruby'],
  md: ['Markdown', 'text/markdown'],
  json: ['JSON', 'application/json'],
  txt: ['Text', 'text/plain'],
};

function renderGist(ctx: Ctx, g: GhGist, full: boolean) {
  const url = `${ctx.api}/gists/${g.id}`;
  const files = Object.fromEntries(
    Object.keys(g.files)
      .sort()
      .map((name) => {
        const content = g.files[name]!;
        const ext = /\.([^.]+)$/.exec(name)?.[1]?.toLowerCase() ?? '';
        const [language, type] = LANGUAGES[ext] ?? [null, 'text/plain'];
        const file = {
          filename: name,
          type,
          // GitHub's description has no null language: a file of no known language has none.
          ...(language ? { language } : {}),
          raw_url: `https://gist.githubusercontent.com/${g.owner}/${g.id}/raw/${sha1(content)}/${name}`,
          size: Buffer.byteLength(content),
        };
        return [name, full ? { ...file, truncated: false, content } : file];
      }),
  );
  return {
    url,
    forks_url: `${url}/forks`,
    commits_url: `${url}/commits`,
    id: g.id,
    node_id: 'G_kwDO' + Buffer.from(g.id.slice(0, 12)).toString('base64url'),
    git_pull_url: `https://gist.github.com/${g.id}.git`,
    git_push_url: `https://gist.github.com/${g.id}.git`,
    html_url: `https://gist.github.com/${g.owner}/${g.id}`,
    files,
    public: g.public,
    created_at: g.created_at,
    updated_at: g.updated_at,
    description: g.description,
    comments: 0,
    user: null,
    comments_url: `${url}/comments`,
    owner: simpleUser(ctx, g.owner),
    truncated: false,
    ...(full ? { forks: [], history: [] } : {}),
  };
}

/** GitHub answers a missing or blank file with one generic error. */
const filesInvalid = (doc: string) => validationFailed([{ resource: 'Gist', code: 'missing_field', field: 'files' }], doc);

function since(req: SandboxRequest, gists: GhGist[]): GhGist[] {
  const at = req.query.get('since');
  if (at && Number.isNaN(Date.parse(at))) throw validationFailed([{ resource: 'Gist', code: 'invalid', field: 'since' }]);
  return gists.filter((g) => !at || g.updated_at >= at).sort((a, b) => b.updated_at.localeCompare(a.updated_at) || a.id.localeCompare(b.id));
}

export function gistRoutes(state: GithubState): Routes {
  const find = (req: SandboxRequest, mine: boolean): GhGist => {
    const g = gistsOf(state).find((x) => x.id === req.params.gist_id);
    if (!g || (mine && g.owner !== state.login)) throw notFound(mine ? DOC.update : DOC.get);
    return g;
  };

  return {
    'GET /gists': (req) => {
      const ctx = ctxOf(state, req);
      return list(req, since(req, gistsOf(state).filter((g) => g.owner === state.login)), (g) => renderGist(ctx, g, false));
    },
    'GET /users/:username/gists': (req) => {
      const ctx = ctxOf(state, req);
      const login = Object.keys(state.users).find((u) => u.toLowerCase() === req.params.username!.toLowerCase());
      if (!login) throw notFound('https://docs.github.com/rest/gists/gists#list-gists-for-a-user');
      const gists = gistsOf(state).filter((g) => g.owner === login && (g.public || login === state.login));
      return list(req, since(req, gists), (g) => renderGist(ctx, g, false));
    },
    'GET /gists/:gist_id': (req) => ({ status: 200, body: renderGist(ctxOf(state, req), find(req, false), true) }),
    'POST /gists': (req): SandboxResponse => {
      const ctx = ctxOf(state, req);
      const body = isObject(req.body) ? req.body : {};
      if (!isObject(body.files) || !Object.keys(body.files).length) throw filesInvalid(DOC.create);
      const files: Record<string, string> = {};
      for (const [name, file] of Object.entries(body.files)) {
        if (!isObject(file) || typeof file.content !== 'string' || !file.content.trim()) throw filesInvalid(DOC.create);
        files[name] = file.content;
      }
      const when = nowIso();
      const g: GhGist = {
        id: hexId(`gist-${++state.seq}`, 32),
        owner: state.login,
        description: typeof body.description === 'string' ? body.description : null,
        public: body.public === true || body.public === 'true',
        files,
        created_at: when,
        updated_at: when,
      };
      gistsOf(state).push(g);
      return { status: 201, body: renderGist(ctx, g, true), headers: { location: `${ctx.api}/gists/${g.id}` } };
    },
    'PATCH /gists/:gist_id': (req) => {
      const g = find(req, true);
      const body = isObject(req.body) ? req.body : {};
      const files = { ...g.files };
      if (body.files !== undefined) {
        if (!isObject(body.files)) throw filesInvalid(DOC.update);
        for (const [name, change] of Object.entries(body.files)) {
          if (change === null) {
            if (!(name in files)) throw new GhError(422, `Failed to delete ${name}: file not found in this gist.`, DOC.update);
            delete files[name];
            continue;
          }
          if (!isObject(change)) throw filesInvalid(DOC.update);
          const content = typeof change.content === 'string' ? change.content : files[name];
          if (content === undefined || !content.trim()) throw filesInvalid(DOC.update);
          const target = typeof change.filename === 'string' && change.filename ? change.filename : name;
          if (target !== name && target in files) throw validationFailed([{ resource: 'Gist', code: 'already_exists', field: 'files', message: `${target} already exists` }], DOC.update);
          delete files[name];
          files[target] = content;
        }
      }
      if (!Object.keys(files).length) throw validationFailed([{ resource: 'Gist', code: 'missing_field', field: 'files', message: 'a gist needs at least one file' }], DOC.update);
      g.files = files;
      if (typeof body.description === 'string') g.description = body.description;
      g.updated_at = nowIso();
      return { status: 200, body: renderGist(ctxOf(state, req), g, true) };
    },
    'DELETE /gists/:gist_id': (req) => {
      const g = find(req, true);
      const all = gistsOf(state);
      all.splice(all.indexOf(g), 1);
      return { status: 204 };
    },
  };
}
