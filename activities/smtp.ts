/**
 * A small SMTP client (RFC 5321) for alert emails: smtp://host:port (plain, STARTTLS when the
 * server offers it) or smtps://host:port (TLS from the start); user:password in the URL turns
 * on AUTH PLAIN; `?from=` sets the envelope sender (default newsflow@localhost).
 */
import net from 'node:net';
import tls from 'node:tls';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** stable per delivery: a repeated send carries the same Message-ID */
  messageId: string;
}

class Conversation {
  private buf = '';
  private waiting: ((line: string) => void) | null = null;
  private lines: string[] = [];
  constructor(public socket: net.Socket) {
    this.attach(socket);
  }
  attach(socket: net.Socket) {
    this.socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      this.buf += d;
      let i;
      while ((i = this.buf.indexOf('\r\n')) >= 0) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 2);
        // multi-line replies: "250-..." continue, "250 ..." ends
        this.lines.push(line);
        if (/^\d{3} /.test(line) || /^\d{3}$/.test(line)) {
          const reply = this.lines.join('\n');
          this.lines = [];
          const w = this.waiting;
          this.waiting = null;
          w?.(reply);
        }
      }
    });
  }
  reply(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.socket.once('error', reject);
      this.socket.once('close', () => reject(new Error('SMTP server closed the connection')));
    });
  }
  async cmd(line: string | null, expect: number): Promise<string> {
    const r = this.reply();
    if (line !== null) this.socket.write(`${line}\r\n`);
    const text = await r;
    if (!text.startsWith(String(expect))) throw new Error(`SMTP ${line?.split(' ')[0] ?? 'greeting'}: ${text.split('\n').pop()}`);
    return text;
  }
}

export async function sendMail(url: string, m: Mail): Promise<void> {
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  const port = Number(u.port || (secure ? 465 : 25));
  const from = u.searchParams.get('from') ?? 'newsflow@localhost';
  const socket = secure ? tls.connect({ host: u.hostname, port, servername: u.hostname }) : net.connect({ host: u.hostname, port });
  socket.setTimeout(30_000, () => socket.destroy(new Error('SMTP timeout')));
  const c = new Conversation(socket);
  try {
    await c.cmd(null, 220);
    let ehlo = await c.cmd('EHLO newsflow', 250);
    if (!secure && /STARTTLS/i.test(ehlo)) {
      await c.cmd('STARTTLS', 220);
      c.attach(tls.connect({ socket, servername: u.hostname }));
      ehlo = await c.cmd('EHLO newsflow', 250);
    }
    if (u.username) {
      const token = Buffer.from(`\0${decodeURIComponent(u.username)}\0${decodeURIComponent(u.password)}`).toString('base64');
      await c.cmd(`AUTH PLAIN ${token}`, 235);
    }
    await c.cmd(`MAIL FROM:<${from}>`, 250);
    await c.cmd(`RCPT TO:<${m.to}>`, 250);
    await c.cmd('DATA', 354);
    const body = [
      `From: ${from}`,
      `To: ${m.to}`,
      `Subject: ${m.subject.replace(/[\r\n]+/g, ' ')}`,
      `Message-ID: ${m.messageId}`,
      `Date: ${new Date().toUTCString()}`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      // dot-stuffing (RFC 5321 4.5.2)
      ...m.text.split(/\r?\n/).map((l) => (l.startsWith('.') ? `.${l}` : l)),
    ].join('\r\n');
    await c.cmd(`${body}\r\n.`, 250);
    await c.cmd('QUIT', 221).catch(() => undefined);
  } finally {
    c.socket.destroy();
  }
}
