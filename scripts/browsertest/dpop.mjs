// oauth4webapi, unmodified, as a DPoP client of typeward and of typeward
// route (internal/server's TestDPoPThroughTheRouterWithOAuth4WebAPI): it
// discovers the issuer, gets a client credentials token bound to a fresh
// key (DPoP() with clientCredentialsGrantRequest) and calls a tool through
// the router with it (protectedResourceRequest), then tries the same token
// as a bearer token. Prints one JSON object of what it saw.
import * as oauth from 'oauth4webapi';

const env = process.env;
const issuer = new URL(env.TW_ISSUER);
const insecure = { [oauth.allowInsecureRequests]: true }; // the test's http://127.0.0.1
const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
const client = { client_id: env.TW_CLIENT_ID };
const auth = oauth.ClientSecretBasic(env.TW_CLIENT_SECRET);
const DPoP = oauth.DPoP(client, await oauth.generateKeyPair(env.TW_ALG || 'ES256'));

const params = new URLSearchParams({ resource: env.TW_RESOURCE, authorization_details: env.TW_DETAILS });
const token = await oauth.processClientCredentialsResponse(as, client,
  await oauth.clientCredentialsGrantRequest(as, client, auth, params, { ...insecure, DPoP }));

const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call',
  params: { name: 'db_query', arguments: { sql: 'select region, total from sales', limit: 10 } } });
const headers = () => new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
const res = await oauth.protectedResourceRequest(token.access_token, 'POST', new URL(env.TW_RESOURCE), headers(), call, { ...insecure, DPoP });
const body = await res.text();

const asBearer = headers();
asBearer.set('authorization', `Bearer ${token.access_token}`);
const bearer = await fetch(env.TW_RESOURCE, { method: 'POST', headers: asBearer, body: call });

console.log(JSON.stringify({
  tokenType: token.token_type, accessToken: token.access_token,
  status: res.status, body,
  bearerStatus: bearer.status, bearerChallenge: bearer.headers.get('www-authenticate'),
}));
