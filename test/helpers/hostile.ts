// What issue 52 found accepted that must not be: characters no one-line field holds, and addresses no
// ad may carry. Shared by the text and ad-address tests and the fuzz test.

/** Each character (or pair) the issue found in one-line fields, inside a short value. */
export const HOSTILE_TEXT: Array<[string, string]> = [
  ['ESC', 'x\u001by'],
  ['BEL', 'x\u0007y'],
  ['DEL', 'x\u007fy'],
  ['CR LF', 'x\r\ny'],
  ['U+0085 (next line)', 'x\u0085y'],
  ['a right-to-left override', 'x\u202Ey'],
  ['a right-to-left isolate', 'x\u2067y'],
  ['a line separator', 'x\u2028y'],
  ['a paragraph separator', 'x\u2029y'],
  ['a byte-order mark', '\ufeffxy'],
];

/** Addresses an ad's linkUrl (or any address an ad, creative or template carries) must not be. */
export const HOSTILE_URLS: Array<[string, string]> = [
  ['javascript:', 'javascript:alert(1)'],
  ['file:', 'file:///etc/passwd'],
  ['data:', 'data:text/html,<script>alert(1)</script>'],
  ['a user and password', 'https://user:secret@shop.example.com/spring'],
  ['a user name alone', 'https://user@shop.example.com/spring'],
  ['a relative URL', '/spring-sale'],
  ['no host', 'https:///spring'],
  ['ftp:', 'ftp://shop.example.com/spring'],
  ['over 2,000 characters', `https://shop.example.com/${'a'.repeat(2000)}`],
  ['vbscript:', 'vbscript:msgbox(1)'],
];
