// docs.js is the API reference page's browser script; the server imports it as text to serve it.
declare const text: string;
export default text;
