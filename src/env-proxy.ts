/**
 * `payments-sandbox/env-proxy`: a preload that sends Node's `http` and
 * `https` requests through the proxy named by HTTPS_PROXY / HTTP_PROXY,
 * except for the hosts of NO_PROXY, for clients whose SDK hard-wires the
 * provider's production host (README, "HTTPS and proxy mode"):
 *
 *   NODE_OPTIONS="--import payments-sandbox/env-proxy" HTTPS_PROXY=http://127.0.0.1:4080 \
 *     NODE_EXTRA_CA_CERTS=$(npx payments-sandbox ca) node app.js
 *
 * Node 20's `https` module ignores those variables (Node 22.21 and 24.5 honour
 * them only with NODE_USE_ENV_PROXY=1). global-agent patches `http.request`,
 * `https.request` and their `get`, and replaces even an agent the SDK makes
 * itself (`new https.Agent()`), which most SDKs do. `fetch` is not covered.
 *
 * Lower-case names (https_proxy, http_proxy, no_proxy) are read when the
 * upper-case ones are absent, as curl and Python do. Without any proxy
 * variable it changes nothing.
 */
import { createGlobalProxyAgent } from 'global-agent';

const env = process.env;
const pick = (name: string): string | null => env[name] || env[name.toLowerCase()] || null;
const [httpProxy, httpsProxy, noProxy] = [pick('HTTP_PROXY'), pick('HTTPS_PROXY'), pick('NO_PROXY')];

if (httpProxy || httpsProxy) {
  // An empty namespace makes global-agent read HTTP_PROXY, HTTPS_PROXY and NO_PROXY rather than GLOBAL_AGENT_*.
  const proxy = createGlobalProxyAgent({ environmentVariableNamespace: '', forceGlobalAgent: true });
  proxy.HTTP_PROXY = httpProxy;
  proxy.HTTPS_PROXY = httpsProxy;
  proxy.NO_PROXY = noProxy;
}
