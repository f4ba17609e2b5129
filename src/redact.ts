/**
 * `scheme://user:password@host` -> `scheme://***@host`, and a bare `user:password@host` the same:
 * a URL's credentials never reach a log line, an error message or the terminal, whichever
 * setting or error the URL came from.
 */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]{0,30}:\/\/)[^\s/@]{1,512}@/giu;
const BARE_CREDENTIALS = /(^|[\s"'(=])[^\s/@"'():=]{1,256}:[^\s/@"']{1,512}@/gu;

export function redactUrlCredentials(text: string): string {
  return text.replace(URL_CREDENTIALS, "$1***@").replace(BARE_CREDENTIALS, "$1***@");
}
