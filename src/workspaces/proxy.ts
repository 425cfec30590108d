// A workspace's proxy: a secret of the catalogue names its server and, for a proxy that asks, the
// user name and password the browser answers its sign-in with (over BiDi; never shown, never in
// the capabilities). The agent only ever names the secret.
import { badInput } from "../errors.ts";
import type { SecretCatalogue } from "../secrets/catalogue.ts";

export interface ProxySpec {
  /** `http://host:port`, `https://host:port` or `socks5://host:port`. */
  server: string;
  username?: string;
  password?: string;
}

const SCHEMES = ["http:", "https:", "socks5:", "socks4:"];

/** The proxy secret `name` stands for; a 400 naming what is missing (never a value). */
export function proxyFrom(secrets: Pick<SecretCatalogue, "get">, name: string): ProxySpec {
  const secret = secrets.get(name);
  if (!secret) throw badInput(`proxy: there is no secret named ${name}: GET /secrets lists them`, "proxy");
  const server = secret.keys.get("server");
  const ok = server !== undefined && URL.canParse(server) && SCHEMES.includes(new URL(server).protocol);
  if (!ok || !new URL(server).hostname) {
    throw badInput(
      `proxy: secret ${name} has no key server holding the proxy's address (http://host:port, https:// or socks5://)`,
      "proxy",
    );
  }
  const username = secret.keys.get("username");
  const password = secret.keys.get("password");
  if ((username === undefined) !== (password === undefined)) {
    throw badInput(`proxy: secret ${name} needs both username and password, or neither`, "proxy");
  }
  return { server, ...(username !== undefined ? { username, password } : {}) };
}
