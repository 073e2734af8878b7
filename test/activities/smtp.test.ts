/** The SMTP client against a minimal SMTP server that records the conversation. */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMail } from '../../activities/smtp.js';

const sessions: { commands: string[]; data: string }[] = [];
let server: net.Server;
let reject550 = false;
beforeAll(async () => {
  server = net.createServer((sock) => {
    const s = { commands: [] as string[], data: '' };
    sessions.push(s);
    let buf = '';
    let inData = false;
    sock.write('220 test ESMTP\r\n');
    sock.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\r\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            sock.write('250 queued\r\n');
          } else s.data += `${line}\n`;
          continue;
        }
        s.commands.push(line);
        const verb = line.split(/[ :]/)[0]!.toUpperCase();
        if (verb === 'EHLO') sock.write('250-test\r\n250 AUTH PLAIN\r\n');
        else if (verb === 'AUTH') sock.write('235 ok\r\n');
        else if (verb === 'MAIL') sock.write('250 ok\r\n');
        else if (verb === 'RCPT') sock.write(reject550 ? '550 no such user\r\n' : '250 ok\r\n');
        else if (verb === 'DATA') {
          inData = true;
          sock.write('354 go\r\n');
        } else if (verb === 'QUIT') sock.end('221 bye\r\n');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterAll(() => server.close());

describe('sendMail', () => {
  it('speaks SMTP: auth, envelope, headers with a stable Message-ID, dot-stuffed body', async () => {
    const port = (server.address() as AddressInfo).port;
    await sendMail(`smtp://ops%40example.com:s3cret@127.0.0.1:${port}?from=alerts@example.com`, {
      to: 'team@example.com',
      subject: 'Alert: floods',
      text: 'Two new articles\n.hidden line\n- River bursts its banks',
      messageId: '<log.0.abc@newsflow>',
    });
    const s = sessions.at(-1)!;
    expect(s.commands[0]).toBe('EHLO newsflow');
    expect(s.commands[1]).toBe(`AUTH PLAIN ${Buffer.from('\0ops@example.com\0s3cret').toString('base64')}`);
    expect(s.commands.slice(2, 5)).toEqual(['MAIL FROM:<alerts@example.com>', 'RCPT TO:<team@example.com>', 'DATA']);
    expect(s.data).toMatch(/^From: alerts@example.com\nTo: team@example.com\nSubject: Alert: floods\nMessage-ID: <log.0.abc@newsflow>\n/);
    expect(s.data).toContain('\n\nTwo new articles\n..hidden line\n- River bursts its banks\n');
  });

  it('a refused recipient is an error naming the step', async () => {
    reject550 = true;
    const port = (server.address() as AddressInfo).port;
    await expect(sendMail(`smtp://127.0.0.1:${port}`, { to: 'nobody@example.com', subject: 's', text: 't', messageId: '<x@y>' })).rejects.toThrow(
      /SMTP RCPT: 550 no such user/,
    );
    reject550 = false;
  });
});
