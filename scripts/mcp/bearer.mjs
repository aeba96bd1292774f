// Preloaded (node --import ./bearer.mjs) into a peer that cannot be told to
// authenticate, such as the conformance suite: every HTTP request it makes
// to the origin $TYPEWARD_BEARER_ORIGIN carries "Authorization: Bearer
// $TYPEWARD_BEARER", unless it carries an Authorization header already.
// fetch and undici's request both go through undici's global dispatcher,
// so one interceptor there covers both.
import { getGlobalDispatcher, setGlobalDispatcher } from 'undici';

const token = process.env.TYPEWARD_BEARER;
const origin = process.env.TYPEWARD_BEARER_ORIGIN;
if (!token || !origin) throw new Error('bearer.mjs: set TYPEWARD_BEARER and TYPEWARD_BEARER_ORIGIN');

function withBearer(headers) {
  if (headers == null) return { authorization: `Bearer ${token}` };
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2) if (String(headers[i]).toLowerCase() === 'authorization') return headers;
    return [...headers, 'authorization', `Bearer ${token}`];
  }
  if (typeof headers[Symbol.iterator] === 'function') return withBearer([...headers].flat());
  if (Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) return headers;
  return { ...headers, authorization: `Bearer ${token}` };
}

setGlobalDispatcher(getGlobalDispatcher().compose((dispatch) => (opts, handler) => {
  const o = typeof opts.origin === 'string' ? opts.origin : opts.origin?.origin;
  return dispatch(o === origin ? { ...opts, headers: withBearer(opts.headers) } : opts, handler);
}));
