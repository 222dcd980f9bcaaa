import type { Routes, SandboxRequest } from '../server.js';
import type { GhIssue, GhRepo, GithubState } from './state.js';
import { GhError, ctxOf, paginate, renderIssue, roleOf, validationFailed } from './render.js';

/** GET /search/issues with a small query parser: repo:, org:/user:, is:, state:, type:, label:, author:, assignee:, mentions:, no:, created:/updated:, free text. */

const DOC = 'https://docs.github.com/rest/search/search#search-issues-and-pull-requests';

interface Term {
  key?: string;
  value: string;
  negate: boolean;
}

/** Splits `repo:o/r is:open label:"good first issue" -label:bug crash` into terms, keeping quoted values whole. */
export function parseQuery(q: string): Term[] {
  const terms: Term[] = [];
  for (const m of q.matchAll(/(-?)(?:([a-zA-Z_]+):)?(?:"([^"]*)"|(\S+))/g)) {
    const value = m[3] ?? m[4] ?? '';
    terms.push({ key: m[2]?.toLowerCase(), value, negate: m[1] === '-' });
  }
  return terms;
}

/** GitHub date qualifiers: `2025-03-01`, `>=2025-03-01`, `<2025-03-01`, `2025-03-01..2025-03-05`, `2025-03-01..*`. */
export function dateMatches(spec: string, iso: string): boolean {
  const day = iso.slice(0, 10);
  const range = /^(\S+)\.\.(\S+)$/.exec(spec);
  if (range) return (range[1] === '*' || iso >= range[1]!) && (range[2] === '*' || day <= range[2]! || iso <= range[2]!);
  const cmp = /^(>=|<=|>|<)?(.+)$/.exec(spec)!;
  const v = cmp[2]!;
  switch (cmp[1]) {
    case '>=':
      return iso >= v;
    case '>':
      return v.length === 10 ? day > v : iso > v;
    case '<=':
      return v.length === 10 ? day <= v : iso <= v;
    case '<':
      return iso < v;
    default:
      return v.length === 10 ? day === v : iso === v;
  }
}

export function searchRoutes(state: GithubState): Routes {
  const visible = (repo: GhRepo) => !repo.private || !!roleOf(state, repo, state.login);

  const matcher = (terms: Term[], repos: GhRepo[]) => (repo: GhRepo, i: GhIssue, comments: string[]) => {
    for (const t of terms) {
      let hit: boolean;
      const v = t.value.toLowerCase();
      switch (t.key) {
        case 'repo':
          hit = `${repo.owner}/${repo.name}`.toLowerCase() === v;
          break;
        case 'org':
        case 'user':
          hit = repo.owner.toLowerCase() === v;
          break;
        case 'is':
        case 'type':
        case 'state':
          hit =
            v === 'issue' ? !i.pull : v === 'pr' || v === 'pull-request' ? !!i.pull : v === 'open' || v === 'closed' ? i.state === v : v === 'merged' ? !!i.pull?.merged_at : v === 'unmerged' ? !!i.pull && !i.pull.merged_at : v === 'draft' ? !!i.pull?.draft : false;
          break;
        case 'label':
          hit = v.split(',').some((l) => i.labels.some((x) => x.toLowerCase() === l));
          break;
        case 'author':
          hit = i.user.toLowerCase() === v;
          break;
        case 'assignee':
          hit = i.assignees.some((a) => a.toLowerCase() === v);
          break;
        case 'mentions':
          hit = [i.body ?? '', ...comments].some((text) => text.toLowerCase().includes(`@${v}`));
          break;
        case 'involves':
          hit = i.user.toLowerCase() === v || i.assignees.some((a) => a.toLowerCase() === v) || [i.body ?? '', ...comments].some((text) => text.toLowerCase().includes(`@${v}`));
          break;
        case 'no':
          hit = v === 'assignee' ? i.assignees.length === 0 : v === 'label' ? i.labels.length === 0 : v === 'milestone';
          break;
        case 'created':
          hit = dateMatches(t.value, i.created_at);
          break;
        case 'updated':
          hit = dateMatches(t.value, i.updated_at);
          break;
        case 'closed':
          hit = !!i.closed_at && dateMatches(t.value, i.closed_at);
          break;
        case 'in':
          hit = true;
          break;
        default: {
          const word = (t.key ? `${t.key}:${t.value}` : t.value).toLowerCase();
          hit = `${i.title}\n${i.body ?? ''}\n${comments.join('\n')}`.toLowerCase().includes(word);
        }
      }
      if (hit === t.negate) return false;
    }
    return repos.includes(repo);
  };

  return {
    'GET /search/issues': (req: SandboxRequest) => {
      const ctx = ctxOf(state, req);
      const q = req.query.get('q');
      if (!q || !q.trim()) throw validationFailed([{ resource: 'Search', field: 'q', code: 'missing' }], DOC);
      if (q.length > 256) throw validationFailed([{ message: 'The search is longer than 256 characters.', resource: 'Search', field: 'q', code: 'invalid' }], DOC);
      const terms = parseQuery(q);
      const repos = state.repos.filter(visible);
      const named = terms.filter((t) => t.key === 'repo' && !t.negate).map((t) => t.value.toLowerCase());
      const owners = terms.filter((t) => (t.key === 'user' || t.key === 'org') && !t.negate).map((t) => t.value.toLowerCase());
      const unknown = [
        ...named.filter((n) => !repos.some((r) => `${r.owner}/${r.name}`.toLowerCase() === n)),
        ...owners.filter((o) => !Object.keys(state.users).some((u) => u.toLowerCase() === o)),
      ];
      if (unknown.length) {
        throw validationFailed(
          [{ message: 'The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.', resource: 'Search', field: 'q', code: 'invalid' }],
          DOC,
        );
      }
      const match = matcher(terms, repos);
      const found = repos.flatMap((repo) =>
        repo.issues
          .filter((i) => match(repo, i, repo.comments.filter((c) => c.issue_number === i.number).map((c) => c.body)))
          .map((i) => ({ repo, i, comments: repo.comments.filter((c) => c.issue_number === i.number).length })),
      );
      const sort = req.query.get('sort');
      const asc = req.query.get('order') === 'asc';
      // Best match (no sort) is approximated by recency.
      const key = (x: (typeof found)[number]) => (sort === 'created' ? x.i.created_at : sort === 'comments' ? String(x.comments).padStart(8, '0') : x.i.updated_at);
      found.sort((a, b) => (asc ? 1 : -1) * (key(a).localeCompare(key(b)) || a.i.id - b.i.id));
      const perPage = Number(req.query.get('per_page') ?? 30);
      const page = Number(req.query.get('page') ?? 1);
      if (page * Math.min(100, perPage) > 1000 + Math.min(100, perPage)) throw new GhError(422, 'Only the first 1000 search results are available', DOC);
      const { items, headers } = paginate(req, found);
      return {
        status: 200,
        headers,
        body: { total_count: found.length, incomplete_results: false, search_type: 'lexical', items: items.map(({ repo, i }) => searchItem(renderIssue(ctx, repo, i))) },
      };
    },
  };
}

/** An issue as search finds it: scored, and without closed_by, which only the issue itself names. */
function searchItem({ closed_by: _closedBy, ...issue }: ReturnType<typeof renderIssue>) {
  return { ...issue, score: 1 };
}
