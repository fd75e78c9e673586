import { type CliContext, resolveCliContext } from "./cli-context.ts";
import { ladingVersion } from "./commands/version.ts";
import { readCredentials, updateCredentials } from "./credentials-store.ts";
import { registryHost } from "./docker-config.ts";
import { tokenFor } from "./session.ts";

/** The docker-credential-helpers "not found" message clients recognise (they then go anonymous). */
export const notFoundMessage = "credentials not found in native keychain";

/** The streams and environment of one helper run. */
export interface CredentialHelperIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: Record<string, string | undefined>;
}

const usage = `usage: docker-credential-lading get | store | erase | list | version | --help

The Docker credential-helper protocol for Lading registries (lading auth configure-docker).
  get     reads a server URL on stdin; prints {"ServerURL","Username","Secret"}
  store   reads {"ServerURL","Username","Secret"} on stdin and saves it
  erase   reads a server URL on stdin and removes what store saved
  list    prints {"<server>": "<username>"}
`;

/**
 * Runs `docker-credential-lading <action>`. `get` answers saved credentials for the host when
 * `store` saved some (they win: `docker login` with a pull token is an explicit choice), else,
 * for the configured registry host, username `_token` and a registry-audience Lading token
 * from {@link tokenFor}. Errors are printed on stdout with exit code 1, as the protocol wants.
 * Nobody signed in is no error: `get` answers the protocol's "not found", silently, and the
 * client goes on anonymously (its stderr is the user's terminal, once per lookup).
 */
export async function runCredentialHelper(args: string[], io: CredentialHelperIo): Promise<number> {
  const [action] = args;
  const fail = (message: string) => {
    io.stdout.write(`${message}\n`);
    return 1;
  };
  if (args.length !== 1) {
    io.stderr.write(usage);
    return 2;
  }
  if (action === "version" || action === "--version") {
    io.stdout.write(`docker-credential-lading (lading ${ladingVersion()})\n`);
    return 0;
  }
  if (action === "--help" || action === "-h" || action === "help") {
    io.stdout.write(usage);
    return 0;
  }
  let ctx: CliContext;
  try {
    ctx = await resolveCliContext({}, io.env, { stdout: io.stdout, stderr: io.stderr });
  } catch (error) {
    return fail((error as Error).message);
  }
  try {
    if (action === "get") {
      const serverUrl = (await readAll(io.stdin)).trim();
      const host = registryHost(serverUrl);
      const saved = (await readCredentials(ctx.configDir)).registries[host];
      if (saved) {
        return answer(io, { ServerURL: serverUrl, Username: saved.username, Secret: saved.secret });
      }
      if (host !== ctx.registryAudience) return fail(notFoundMessage);
      let secret: string;
      try {
        secret = await tokenFor(ctx, ctx.registryAudience);
      } catch (error) {
        const message = (error as Error).message;
        if (!message.startsWith("not signed in")) throw error;
        return fail(notFoundMessage);
      }
      return answer(io, { ServerURL: serverUrl, Username: "_token", Secret: secret });
    }
    if (action === "store") {
      const input = JSON.parse(await readAll(io.stdin)) as Record<string, unknown>;
      if (typeof input.ServerURL !== "string" || typeof input.Username !== "string") {
        return fail("store needs {ServerURL, Username, Secret} on stdin");
      }
      const host = registryHost(input.ServerURL);
      await updateCredentials(ctx.configDir, async (credentials) => {
        credentials.registries[host] = {
          username: input.Username as string,
          secret: typeof input.Secret === "string" ? input.Secret : "",
        };
      });
      return 0;
    }
    if (action === "erase") {
      const host = registryHost(await readAll(io.stdin));
      await updateCredentials(ctx.configDir, async (credentials) => {
        delete credentials.registries[host];
      });
      return 0;
    }
    if (action === "list") {
      const credentials = await readCredentials(ctx.configDir);
      const list: Record<string, string> = {};
      if (ctx.env.LADING_TOKEN || credentials.sessions[ctx.apiUrl]?.refreshToken) {
        list[ctx.registryAudience] = "_token";
      }
      for (const [host, saved] of Object.entries(credentials.registries))
        list[host] = saved.username;
      return answer(io, list);
    }
  } catch (error) {
    return fail((error as Error).message);
  }
  io.stderr.write(usage);
  return 2;
}

function answer(io: CredentialHelperIo, body: unknown): number {
  io.stdout.write(`${JSON.stringify(body)}\n`);
  return 0;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
