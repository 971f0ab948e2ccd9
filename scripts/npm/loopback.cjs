// Preloaded into the everything server by scripts/e2e-everything.sh (node -r):
// every server it starts listens on 127.0.0.1 only, and reports the port it
// got on stderr as "LISTENING <port>", so the script can run it on port 0.
'use strict';
const net = require('net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || (typeof args[0] === 'string' && /^\d+$/.test(args[0]))) {
    const port = Number(args[0]);
    const rest = args.slice(1).filter((a) => typeof a === 'function');
    this.once('listening', () => process.stderr.write(`LISTENING ${this.address().port}\n`));
    return listen.call(this, port, '127.0.0.1', ...rest);
  }
  return listen.apply(this, args);
};
