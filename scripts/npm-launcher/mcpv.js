#!/usr/bin/env node
// The mcpv command of the npm package "mcpv": it runs the mcpv binary that
// npm installed beside it as an optional dependency, one package per
// platform (@mcpv/linux-x64, @mcpv/win32-arm64, ...), with the arguments,
// standard streams and environment given, and ends as the binary ends: its
// exit code, or the signal that ended it. It downloads nothing, and has no
// install script. Node 18 or later, its standard library alone.
//
// Signals. mcpv takes a second Ctrl-C as "stop at once". A terminal's
// Ctrl-C (and Ctrl-\, and a hangup) reaches every process of its
// foreground process group: the binary, which runs in this process's
// group, gets it from the terminal as this process does, and passing this
// process's on would make one Ctrl-C two. npx adds a copy of its own
// (npm forwards SIGINT and SIGTERM to the command it runs). A signal sent
// to this process alone (kill -INT PID from a script) reaches the binary
// only if passed on. Node does not say who sent a signal, so:
//
//   - SIGTERM, which no terminal sends, is passed on at once;
//   - SIGINT, SIGQUIT and SIGHUP are passed on at once unless this process
//     is in the foreground process group of its controlling terminal, where
//     they are taken for the terminal's, which the binary got too; such a
//     signal is held back, and passed on only if the binary still runs
//     heldFor later. mcpv ends within 10 s of its first signal, so a
//     signal held back reaches it only if it never got the terminal's.
//
// On Windows the console's Ctrl-C reaches the binary itself; this process
// only waits for it and exits with its code.
//
// Killed itself with SIGKILL (a CI step's timeout, an agent host that
// gives up), this process passes nothing on. So the binary gets one end
// of a pipe as its descriptor 3 (MCPV_LAUNCHER_FD names it), whose other
// end this process holds, never writes to and never closes: the system
// closes it as this process ends, however it ends, and the binary takes
// that as a SIGTERM (Linux, macOS and Windows alike).
'use strict';

const childProcess = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

// heldFor is how long a signal taken for the terminal's is held back: more
// than the 10 s in which mcpv ends after its first signal.
const heldFor = 12000;

const passedOn = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
const sentByTerminals = new Set(['SIGINT', 'SIGQUIT', 'SIGHUP']);

function fail(message) {
  process.stderr.write('mcpv: ' + message + '\n');
  // 2, as for any problem found before a server is started.
  process.exit(2);
}

function ownVersion() {
  try {
    return require('../package.json').version;
  } catch (err) {
    return 'latest';
  }
}

function binaryPath() {
  const platformPackage = '@mcpv/' + process.platform + '-' + process.arch;
  const name = process.platform === 'win32' ? 'mcpv.exe' : 'mcpv';
  let dir;
  try {
    dir = path.dirname(require.resolve(platformPackage + '/package.json'));
  } catch (err) {
    fail(
      'the package ' + platformPackage + ' with the mcpv binary for ' + process.platform + '/' + process.arch +
        ' is not installed (npm leaves optional dependencies out with --omit=optional or --no-optional); ' +
        'install it too: npm install ' + platformPackage + '@' + ownVersion(),
    );
  }
  const bin = path.join(dir, 'bin', name);
  if (!fs.existsSync(bin)) {
    fail(platformPackage + ' is installed without its binary ' + bin);
  }
  return bin;
}

// inTerminalForeground reports whether this process is in the foreground
// process group of its controlling terminal, where a terminal's signals go.
function inTerminalForeground() {
  if (process.platform === 'linux') {
    try {
      // pid (comm) state ppid pgrp session tty_nr tpgid ...; comm may hold spaces.
      const stat = fs.readFileSync('/proc/self/stat', 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pgrp = Number(fields[2]);
      const ttyNr = Number(fields[4]);
      const tpgid = Number(fields[5]);
      return ttyNr !== 0 && tpgid === pgrp;
    } catch (err) {
      return false;
    }
  }
  try {
    // ps marks the processes of a terminal's foreground process group with +.
    const stat = childProcess.execFileSync('ps', ['-o', 'stat=', '-p', String(process.pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return stat.includes('+');
  } catch (err) {
    return false;
  }
}

function main() {
  const bin = binaryPath();
  let child;
  let ended = false;
  const held = new Map(); // signal name -> the timer that passes it on

  function passOn(signal) {
    if (ended) return;
    try {
      child.kill(signal);
    } catch (err) {
      // gone already: its exit is on its way
    }
  }

  function onSignal(signal) {
    if (ended) return;
    if (process.platform === 'win32') return; // the console's Ctrl-C reached the binary
    if (!sentByTerminals.has(signal) || !inTerminalForeground()) {
      passOn(signal);
      return;
    }
    if (!held.has(signal)) {
      held.set(signal, setTimeout(() => {
        held.delete(signal);
        passOn(signal);
      }, heldFor));
    }
  }

  // Handled before the binary starts: a signal in between would end this
  // process and leave the binary running. The handlers run on the event
  // loop, after spawn has returned.
  const signals = process.platform === 'win32' ? ['SIGINT', 'SIGBREAK', 'SIGHUP'] : passedOn;
  for (const signal of signals) process.on(signal, onSignal);
  child = childProcess.spawn(bin, process.argv.slice(2), {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    env: Object.assign({}, process.env, { MCPV_LAUNCHER_FD: '3' }),
  });

  child.on('error', (err) => {
    ended = true;
    fail('cannot run ' + bin + ': ' + err.message);
  });
  child.on('exit', (code, signal) => {
    ended = true;
    for (const timer of held.values()) clearTimeout(timer);
    if (signal === null) {
      process.exit(code);
    }
    // Ended by a signal: end by the same one, as the shell would have
    // seen the binary end, with this process's own handlers gone.
    for (const s of signals) process.removeAllListeners(s);
    process.exitCode = 128 + (os.constants.signals[signal] || 0); // if the signal is one Node ignores
    process.kill(process.pid, signal);
  });
}

main();
