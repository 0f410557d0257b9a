import { isIP } from 'node:net';
import type { RequestHandler } from 'express';
import { ApiError } from '../errors.js';
import { LOOPBACK_NAMES } from '../tls/host-names.js';

/**
 * The host names the sandbox answers to. A web page cannot reach a sandbox
 * on loopback by its own name, but it can by DNS rebinding: its name made to
 * point at 127.0.0.1, so that the browser sends the page's own name as the
 * Host. Answering only the names the sandbox was started for closes that
 * door (README, "Configuration": `--allowed-host`).
 */
export class AllowedHosts {
  private readonly names = new Set<string>(LOOPBACK_NAMES);

  /**
   * @param names host names or IP addresses beside the loopback ones (`--allowed-host`, the `--tls-host` names)
   * @throws Error when one is neither a host name nor an IP address
   */
  constructor(names: Iterable<string> = []) {
    for (const name of names) this.add(name);
  }

  /**
   * Allows one more name (an IPv6 address with or without brackets).
   * @throws Error when it is neither a host name nor an IP address
   */
  add(name: string): void {
    this.names.add(hostName(name));
  }

  /** Allows the host the sandbox listens on, unless it is every interface (0.0.0.0, ::), which names no host. */
  addListening(host: string): void {
    if (!['0.0.0.0', '::', '[::]', ''].includes(host)) this.tryAdd(host);
  }

  /** Allows the host of a URL (`--public-url`): clients and customers' browsers come by that name. */
  addUrl(url: string): void {
    if (URL.canParse(url)) this.tryAdd(new URL(url).hostname);
  }

  // Names known only once the sandbox listens must not stop it: one that is no host name matches no Host anyway.
  private tryAdd(name: string): void {
    try {
      this.add(name);
    } catch {
      // left out
    }
  }

  /** Whether a Host header (`name`, `name:port`, `[v6]:port`) names an allowed host. */
  allows(hostHeader: string | undefined): boolean {
    const name = hostOf(hostHeader);
    return name !== undefined && this.names.has(name);
  }
}

/**
 * The refusal of a request whose Host header is not an allowed name: 403 in
 * the error shape of the part of the sandbox asked (`{message, error}`:
 * `FORBIDDEN` under the control API, `PERMISSION` elsewhere, as the Payments
 * API's refusals), or undefined for an allowed name.
 */
export function hostRefusal(allowed: AllowedHosts, host: string | undefined, control: boolean): ApiError | undefined {
  if (allowed.allows(host)) return undefined;
  const shown = (host ?? '(none)').slice(0, 100);
  // The names allowed are not listed: a page that rebound its name would read them.
  const message = `Host ${shown} is not a name this sandbox answers to: use localhost, or start it with --allowed-host <name>`;
  return new ApiError(403, { message, error: control ? 'FORBIDDEN' : 'PERMISSION' }, 'host-not-allowed');
}

/** Refuses (hostRefusal) every request whose Host is not an allowed name, before anything else reads it. */
export function hostGuard(allowed: AllowedHosts, controlBase: string): RequestHandler {
  return (req, _res, next) => {
    next(hostRefusal(allowed, req.headers.host, req.path === controlBase || req.path.startsWith(`${controlBase}/`)));
  };
}

/**
 * `name` as the sandbox compares host names: lower case, without brackets
 * around an IPv6 address or a trailing dot. Underscores are allowed, as
 * container service names have them.
 * @throws Error when it is neither a host name nor an IP address
 */
export function hostName(name: string): string {
  const bare = name.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  const label = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
  if (isIP(bare) || (bare.length <= 253 && bare.split('.').every((part) => label.test(part)))) return bare;
  throw new Error(`"${name}" is not a host name (letters, digits, hyphens, underscores and dots) nor an IP address`);
}

// `name[:port]` or `[v6][:port]`, as the sandbox compares names (lower case, no trailing dot).
function hostOf(header: string | undefined): string | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+))(?::(\d{1,5}))?$/.exec(header?.trim() ?? '');
  if (!match) return undefined;
  return (match[1] ?? match[2]!).toLowerCase().replace(/\.$/, '');
}
