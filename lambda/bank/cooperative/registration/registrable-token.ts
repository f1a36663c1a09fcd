/**
 * What may be registered as a token, checked one way for a deploy (the provider) and for a repair
 * (the registration watch): the watch never installs a value a deploy would refuse.
 */

/** Throws, naming the secret (never the value), when `value` must not be registered with the bank. */
export function checkRegistrableToken(value: string, secretArn: string): void {
  if (!value) {
    throw new Error(
      `The token secret ${secretArn} holds an empty value: the bank would send no token and the receiver refuse every notification with 401. Store the token as the secret's plain text value, then update the stack (tokenVersion) to register it`,
    );
  }
  // The bank sends the value as is: a space or line break around it would make every notification a 401.
  if (value.trim() !== value) {
    throw new Error(
      `The token secret ${secretArn} holds a value with leading or trailing whitespace (a space or a line break): the bank would send it as is and the receiver refuse every notification with 401. Store the token without surrounding whitespace, then update the stack (tokenVersion) to register it`,
    );
  }
  // An HTTP header cannot carry a control character: the bank would fail every delivery at its side.
  // eslint-disable-next-line no-control-regex -- control characters are what it looks for
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    throw new Error(
      `The token secret ${secretArn} holds a value with a control character (such as a line break) inside it, which no HTTP header can carry: the bank could deliver no notification. Store a token of printable characters, then update the stack (tokenVersion) to register it`,
    );
  }
}
