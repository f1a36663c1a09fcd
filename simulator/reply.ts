import type { SimulatorReply } from './engine';
import { HtmlPage } from './errors';

/** A simulator reply as HTTP: its JSON, or the HTML page a fault answers with, and the content type. */
export function replyBody(reply: SimulatorReply): { body: string; contentType?: string } {
  if (reply.body instanceof HtmlPage) return { body: reply.body.html, contentType: 'text/html; charset=utf-8' };
  if (reply.body === undefined) return { body: '' };
  return { body: JSON.stringify(reply.body), contentType: 'application/json; charset=utf-8' };
}
