/**
 * How the browser page proves it was opened from `caplab serve`'s URL: the token comes in the URL fragment
 * (`#token=…`, never sent to a server), is kept in the tab's session storage (scoped to the origin, port
 * included) and goes back as `Authorization: Bearer` on API calls and as a WebSocket subprotocol (browsers set
 * no headers on sockets). No cookie: browsers send 127.0.0.1's cookies to every port of it.
 */
export const WS_PROTOCOL = 'caplab.v1';
export const WS_BEARER = 'caplab.bearer.';
export const TOKEN_STORAGE_KEY = 'caplab_token';
