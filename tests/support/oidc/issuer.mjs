// A Sign in with ChatGPT issuer for the auth tests: npm `oidc-provider` 9 on 127.0.0.1:PORT,
// configured like the real one as far as the client sees it.
//
// - `client_id=dynamic_agent_client` with an `ext_agent_host_id` registers (or updates) a
//   public client for that host; the callback carries the issued `client_id`.
// - PKCE S256 is required; scopes include `resource.invoke chatgpt.tokens.use.direct` for the
//   resource `https://api.openai.com/v1`.
// - Sign-in and consent complete without a form (the test account `ISSUER_ACCOUNT`, default
//   `user-1`), so a headless browser only follows redirects.
// - Refresh tokens rotate; reusing one revokes the grant. Token responses carry
//   `earliest_refresh_at` (Unix seconds, `ISSUER_EARLIEST_REFRESH` seconds after issue).
// - Device flow and RFC 7009 revocation are on.
// - Test control (tests only): `POST /test/account?sub=NAME` switches the account later
//   sign-ins get; `POST /test/token-delay?ms=N` delays token responses; `POST /test/requests`
//   counts the requests served, by method and path.
//
// Usage: node issuer.mjs PORT, with ANSA_OIDC_MODULES naming a node_modules directory that
// holds oidc-provider (and ISSUER_TLS_CERT/ISSUER_TLS_KEY for HTTPS). Prints
// `listening <issuer>` once it accepts requests.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = process.env.ANSA_OIDC_MODULES;
const { default: Provider, errors } = await import(
  pathToFileURL(join(modules, 'oidc-provider', 'lib', 'index.js')).href
);

// Port 0 binds any free port; the issuer URL (with the port) is known once listening.
const tls = process.env.ISSUER_TLS_CERT && process.env.ISSUER_TLS_KEY;
const scheme = tls ? 'https' : 'http';
let port = Number(process.argv[2]);
if (port === 0) {
  const { createServer: probe } = await import('node:net');
  port = await new Promise((resolve) => {
    const s = probe().listen(0, '127.0.0.1', () => {
      const { port: p } = s.address();
      s.close(() => resolve(p));
    });
  });
}
const issuer = `${scheme}://127.0.0.1:${port}`;
const RESOURCE = 'https://api.openai.com/v1';
const RESOURCE_SCOPES = 'resource.invoke chatgpt.tokens.use.direct';
const accessTtl = Number(process.env.ISSUER_ACCESS_TTL || 3600);
const earliest = Number(process.env.ISSUER_EARLIEST_REFRESH || 0);
let account = process.env.ISSUER_ACCOUNT || 'user-1';
const DYNAMIC = 'dynamic_agent_client';

const provider = new Provider(issuer, {
  clients: [],
  findAccount: async (_ctx, sub) => ({
    accountId: sub,
    claims: async () => ({ sub, email: `${sub}@example.com`, email_verified: true, name: 'Test User' }),
  }),
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  scopes: ['openid', 'offline_access', 'profile', 'email', 'resource.invoke', 'chatgpt.tokens.use.direct'],
  extraParams: ['ext_agent_host_id', 'agent_name_hint'],
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    deviceFlow: {
      enabled: true,
      // The browser confirms the user code without a click: the form submits itself.
      userCodeInputSource: async (ctx, form) => {
        ctx.body = `<!doctype html><html><body>${form}<input form="op.deviceInputForm" name="user_code" value="${ctx.oidc.params.user_code || ''}"><script>document.getElementById('op.deviceInputForm').submit()</script></body></html>`;
      },
      userCodeConfirmSource: async (ctx, form) => {
        ctx.body = `<!doctype html><html><body>${form}<script>document.getElementById('op.deviceConfirmForm').submit()</script></body></html>`;
      },
      successSource: async (ctx) => {
        ctx.body = '<!doctype html><html><body><p id="done">Signed in on the device.</p></body></html>';
      },
    },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => RESOURCE,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => {
        if (indicator !== RESOURCE) throw new errors.InvalidTarget();
        return { scope: RESOURCE_SCOPES, accessTokenTTL: accessTtl, accessTokenFormat: 'opaque' };
      },
    },
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  // Like the real issuer: a refresh token without `prompt=consent` (oidc-provider would drop
  // offline_access otherwise), not tied to the browser session.
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  expiresWithSession: async () => false,
  rotateRefreshToken: () => true,
  ttl: { AccessToken: accessTtl, IdToken: 3600, RefreshToken: 86400, Grant: 86400, Session: 86400 },
});
provider.proxy = false;

function issuedId(host) {
  return `app_${createHash('sha256').update(host).digest('hex').slice(0, 20)}`;
}

async function register(host, redirectUri) {
  const id = issuedId(host);
  const old = await provider.Client.adapter.find(id);
  const uris = new Set(old ? old.redirect_uris : []);
  if (redirectUri) uris.add(redirectUri);
  if (!uris.size) uris.add('http://127.0.0.1/callback');
  await provider.Client.adapter.upsert(id, {
    client_id: id,
    redirect_uris: [...uris],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
    response_types: ['code'],
  });
  return id;
}

// A device authorization for the dynamic client registers the host's client too; the
// response names the issued client_id.
provider.use(async (ctx, next) => {
  if (ctx.path !== '/device/auth' || ctx.method !== 'POST') return next();
  const chunks = [];
  for await (const chunk of ctx.req) chunks.push(chunk);
  const params = new URLSearchParams(Buffer.concat(chunks).toString());
  let issued;
  if (params.get('client_id') === DYNAMIC) {
    const host = params.get('ext_agent_host_id');
    if (!host || !host.startsWith('urn:uuid:')) {
      ctx.status = 400;
      ctx.body = { error: 'invalid_request', error_description: 'ext_agent_host_id is required' };
      return;
    }
    issued = await register(host);
    params.set('client_id', issued);
  }
  ctx.req.body = params.toString();
  await next();
  if (issued && ctx.body && typeof ctx.body === 'object' && ctx.body.device_code) {
    ctx.body = { ...ctx.body, client_id: issued };
  }
});

// Registration: the dynamic client becomes the host's own client for this redirect URI.
provider.use(async (ctx, next) => {
  if (ctx.path === '/auth' && ctx.query.client_id === DYNAMIC) {
    const host = ctx.query.ext_agent_host_id;
    if (!host || !String(host).startsWith('urn:uuid:')) {
      ctx.status = 400;
      ctx.body = { error: 'invalid_request', error_description: 'ext_agent_host_id is required' };
      return;
    }
    const id = await register(String(host), String(ctx.query.redirect_uri));
    ctx.query = { ...ctx.query, client_id: id };
  }
  await next();
  // The callback names the issued client.
  const location = ctx.response.get('location');
  const client = ctx.oidc && ctx.oidc.client && ctx.oidc.client.clientId;
  if (location && client && client.startsWith('app_') && /[?&]code=/.test(location)) {
    const url = new URL(location);
    url.searchParams.set('client_id', client);
    ctx.set('location', url.href);
  }
  if (ctx.path === '/token' && ctx.body && typeof ctx.body === 'object' && ctx.body.access_token) {
    ctx.body = { ...ctx.body, earliest_refresh_at: Math.floor(Date.now() / 1000) + earliest };
  }
});

// Test control: `POST /test/account?sub=NAME` makes later sign-ins sign in as NAME;
// `POST /test/token-delay?ms=N` holds every later token request N ms before answering it;
// `POST /test/requests` answers how many requests each `METHOD /path` got so far.
let tokenDelay = 0;
const seen = {};
provider.use(async (ctx, next) => {
  if (ctx.method === 'POST' && ctx.path === '/test/requests') {
    ctx.body = seen;
    return;
  }
  if (!ctx.path.startsWith('/test/')) {
    const key = `${ctx.method} ${ctx.path}`;
    seen[key] = (seen[key] || 0) + 1;
  }
  if (ctx.method === 'POST' && ctx.path === '/test/account') {
    account = String(ctx.query.sub || account);
    ctx.body = { account };
    return;
  }
  if (ctx.method === 'POST' && ctx.path === '/test/token-delay') {
    tokenDelay = Number(ctx.query.ms || 0);
    ctx.body = { tokenDelay };
    return;
  }
  if (ctx.method === 'POST' && ctx.path === '/token' && tokenDelay > 0) {
    await new Promise((resolve) => setTimeout(resolve, tokenDelay));
  }
  return next();
});

// Sign-in and consent without forms.
provider.use(async (ctx, next) => {
  const m = ctx.path.match(/^\/interaction\/([^/]+)$/);
  if (!m) return next();
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  ctx.respond = false;
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: account } }, {
      mergeWithLastSubmission: false,
    });
    return;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
  grant.addOIDCScope(String(details.params.scope));
  grant.addResourceScope(RESOURCE, RESOURCE_SCOPES);
  const grantId = await grant.save();
  await provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId } }, {
    mergeWithLastSubmission: true,
  });
});

const ready = () => console.log(`listening ${issuer}`);
if (tls) {
  createServer(
    { cert: readFileSync(process.env.ISSUER_TLS_CERT), key: readFileSync(process.env.ISSUER_TLS_KEY) },
    provider.callback(),
  ).listen(port, '127.0.0.1', ready);
} else {
  provider.listen(port, '127.0.0.1', ready);
}
