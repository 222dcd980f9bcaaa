import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent } from 'undici';
import { InputError } from '../errors.js';

/**
 * Where events may be forwarded and MCP event deliveries sent: loopback and public addresses always, private networks
 * when the operator allows them.
 */
export interface ForwardPolicy {
  /** SWITCHBOARD_FORWARD_ALLOW_PRIVATE: 10/8, 172.16/12, 192.168/16, 100.64/10 and fc00::/7 may be forwarded to. */
  allowPrivate: boolean;
  /** Loopback addresses may be reached (forwards to an agent on this machine); true unless set. */
  allowLoopback?: boolean;
  /** Resolves a host name to its addresses; the system resolver unless a test injects one. */
  resolve?: (hostname: string) => Promise<string[]>;
}

export const ALLOW_PRIVATE_SETTING = 'SWITCHBOARD_FORWARD_ALLOW_PRIVATE';

const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200', '168.63.129.16']);
const METADATA_HOSTS = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);
const PRIVATE_RANGES = new Set(['private', 'uniqueLocal', 'carrierGradeNat']);

/** A forward refused by policy: trying again will not help, so it is not retried. */
export class ForwardRefused extends Error {
  readonly code = 'ERR_FORWARD_REFUSED';
}

async function systemResolve(hostname: string): Promise<string[]> {
  return (await dns.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);
}

/** IPv4 carried inside an IPv6 address (mapped, translated, NAT64, 6to4) is judged as that IPv4 address. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const range = address.range();
  const bytes = address.toByteArray();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') return new ipaddr.IPv4(bytes.slice(12, 16));
  if (range === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6));
  return undefined;
}

/** Why this address may not receive forwards, or undefined when it may. */
export function addressRefusal(text: string, allowPrivate: boolean, allowLoopback = true): string | undefined {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.parse(text.replace(/^\[|\]$/g, ''));
  } catch {
    return `${text} is not an IP address`;
  }
  const inner = address.kind() === 'ipv6' ? embeddedIPv4(address as ipaddr.IPv6) : undefined;
  const judged = inner ?? address;
  const range = judged.range();
  if (METADATA_ADDRESSES.has(judged.toString()) || METADATA_ADDRESSES.has(address.toString())) return `${text} is a cloud metadata address`;
  if (range === 'linkLocal') return `${text} is a link-local address`;
  if (range === 'loopback') return allowLoopback ? undefined : `${text} is a loopback address`;
  if (range === 'unicast') return undefined;
  if (PRIVATE_RANGES.has(range)) {
    return allowPrivate ? undefined : `${text} is a private address (set ${ALLOW_PRIVATE_SETTING}=1 to forward to private networks)`;
  }
  return `${text} is not a unicast address (${range})`;
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
}

/** Why this URL's host may not receive forwards, judged without DNS; undefined when it may. */
export function hostRefusal(url: URL, allowPrivate: boolean, allowLoopback = true): string | undefined {
  const host = bareHost(url);
  if (isIP(host)) return addressRefusal(host, allowPrivate, allowLoopback);
  if (METADATA_HOSTS.has(host)) return `${host} is a cloud metadata host`;
  return undefined;
}

/** The addresses a host may be reached at under the policy, or a ForwardRefused saying why none. */
async function allowedAddresses(hostname: string, policy: ForwardPolicy): Promise<string[]> {
  const addresses = await (policy.resolve ?? systemResolve)(hostname);
  const refusals = addresses.map((a) => addressRefusal(a, policy.allowPrivate, policy.allowLoopback ?? true));
  const allowed = addresses.filter((_, i) => refusals[i] === undefined);
  if (allowed.length === 0) {
    throw new ForwardRefused(`${hostname} resolves only to refused addresses: ${refusals.join('; ') || 'none'}`);
  }
  return allowed;
}

/**
 * Checks a forward_url (or an MCP event callback URL, named by `field`) when it is given; a name is resolved now too,
 * though it is checked again at every send.
 */
export async function checkForwardUrl(value: string, policy: ForwardPolicy, field = 'forward_url'): Promise<string> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InputError(`"${field}" must be an absolute http(s) URL, not ${JSON.stringify(value.slice(0, 100))}.`, field);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InputError(`"${field}" must use http or https.`, field);
  if (url.username || url.password) throw new InputError(`"${field}" must not carry a user name or password.`, field);
  const refusal = hostRefusal(url, policy.allowPrivate);
  if (refusal) throw new InputError(`"${field}" is refused: ${refusal}.`, field);
  if (!isIP(bareHost(url))) {
    try {
      await allowedAddresses(url.hostname, policy);
    } catch (error) {
      // A name that does not resolve yet is accepted: each send resolves it again and records why it failed.
      if (error instanceof ForwardRefused) throw new InputError(`"${field}" is refused: ${error.message}.`, field);
    }
  }
  return url.href;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for net.connect that connects only to addresses the policy allows, so the check holds for the address actually used. */
export function guardedLookup(policy: ForwardPolicy) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    const wanted = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    allowedAddresses(hostname, policy).then(
      (addresses) => {
        const usable = addresses.map((address) => ({ address, family: isIP(address) })).filter((a) => !wanted || a.family === wanted);
        if (usable.length === 0) return callback(Object.assign(new Error(`${hostname} has no IPv${wanted} address`), { code: 'ENOTFOUND' }), []);
        if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

/** The dispatcher forwards are sent with: every connection's address is checked, and redirects are not followed. */
export function forwardDispatcher(policy: ForwardPolicy, connectTimeoutMs = 10_000): Agent {
  return new Agent({ connect: { timeout: connectTimeoutMs, lookup: guardedLookup(policy) }, keepAliveTimeout: 10_000 });
}
