import * as z from 'zod/v4';
import { InputError } from '../errors.js';
import type { HttpMethod } from '../http/client.js';
import { checkCallerHeaders } from '../http/url-guard.js';
import type { Connector, Tool } from '../tool.js';

export interface ApiCallOptions {
  /** The spec names the Vercel input `path`; the others `endpoint`. */
  pathField: 'endpoint' | 'path';
  methods: readonly HttpMethod[];
  headers: boolean;
  example: string;
  /** GitHub: `headers.accept` must be one of its vendor media types. */
  requireVendorAccept?: boolean;
  readOnly: boolean;
}

const KEPT_HEADERS = /^(content-type|etag|last-modified|link|location|retry-after|x-ratelimit-.*|x-oauth-scopes|x-accepted-oauth-scopes|x-credits-.*|request-id|x-github-request-id|x-vercel-id)$/;
const GITHUB_MEDIA_TYPE = /^application\/vnd\.github([.+][a-z0-9.+-]*)?$/i;

const output = z.object({
  status: z.number().int().optional(),
  headers: z.record(z.string(), z.string()).optional().describe('content-type, etag, link, rate limits'),
  body: z.unknown().optional().describe('JSON, text or base64 (body_encoding)'),
  body_encoding: z.enum(['json', 'text', 'base64', 'none']).optional(),
  dry_run: z.boolean().optional(),
  request: z
    .object({
      method: z.string(),
      url: z.string(),
      headers: z.record(z.string(), z.string()),
      body: z.unknown().optional(),
    })
    .optional()
    .describe('dry_run: the request, credentials redacted'),
});

/** The generic API Call step of a connector: any path of the provider, the account's credentials attached. */
export function apiCallTool(connector: Connector, options: ApiCallOptions): Tool {
  const methods = (options.readOnly ? ['GET'] : options.methods) as [HttpMethod, ...HttpMethod[]];
  const shape = {
    method: z.enum(methods).describe(options.readOnly ? 'GET only (read-only mode)' : 'HTTP method'),
    [options.pathField]: z.string().describe(`Path and query, e.g. ${options.example}`),
    body: z.record(z.string(), z.unknown()).optional().describe('JSON; not with GET'),
    ...(options.headers
      ? {
          headers: z
            .record(z.string(), z.string())
            .optional()
            .describe(
              options.requireVendorAccept
                ? 'Must include accept: application/vnd.github+json (or a variant such as .raw+json)'
                : 'Credentials are added for you',
            ),
        }
      : {}),
    dry_run: z.boolean().optional().describe('Send nothing'),
  };
  const input = z.object(shape).strict();

  return connector.tool({
    name: 'api_call',
    title: `${connector.title} API call`,
    description:
      `Any ${connector.title} API request, with the account's credentials, for what no other tool covers; no other host.`,
    input,
    output,
    effect: options.readOnly ? 'read' : 'delete',
    async run(args, { api }) {
      const { method, body, dry_run } = args as { method: HttpMethod; body?: Record<string, unknown>; dry_run?: boolean };
      const endpoint = (args as Record<string, unknown>)[options.pathField] as string;
      const headers = checkCallerHeaders((args as { headers?: Record<string, string> }).headers);
      if (options.requireVendorAccept) checkVendorAccept(headers);
      if (body !== undefined && method === 'GET') {
        throw new InputError('"body" cannot be sent with GET; remove it or use POST, PUT or PATCH.', 'body');
      }
      const request = { method, endpoint, endpointField: options.pathField, body, headers, acceptStatus: [304] };
      if (dry_run) return { dry_run: true, request: await api.prepare(request) };
      const res = await api.request(request);
      const kept = Object.fromEntries(Object.entries(res.headers).filter(([k]) => KEPT_HEADERS.test(k)));
      return { status: res.status, headers: kept, body: res.body, body_encoding: res.bodyEncoding };
    },
  });
}

function checkVendorAccept(headers: Record<string, string>): void {
  const accept = headers.accept;
  if (accept === undefined) {
    throw new InputError(
      '"headers.accept" is required by the GitHub API Call: add "headers": {"accept": "application/vnd.github+json"} ' +
        '(or a variant such as application/vnd.github.raw+json). Nothing was sent.',
      'headers.accept',
    );
  }
  if (!GITHUB_MEDIA_TYPE.test(accept.trim())) {
    throw new InputError(
      `"headers.accept" must be a GitHub media type such as application/vnd.github+json, not ${JSON.stringify(accept.slice(0, 80))}. Nothing was sent.`,
      'headers.accept',
    );
  }
}
