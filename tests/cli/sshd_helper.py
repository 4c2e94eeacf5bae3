"""A throwaway OpenSSH server on a loopback port, for tests and benchmarks.

Host and user keys are made fresh in a temporary directory; the server only
accepts that user key, for the current user, on 127.0.0.1.
"""
import os
import shutil
import socket
import subprocess
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Sshd:
    def __init__(self, tmp):
        self.dir = os.path.join(tmp, "sshd")
        os.makedirs(self.dir)
        os.chmod(self.dir, 0o700)
        self.port = free_port()
        self.key = os.path.join(self.dir, "id")
        host = os.path.join(self.dir, "host")
        for path in (self.key, host):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                            path], check=True)
        auth = os.path.join(self.dir, "authorized_keys")
        shutil.copy(self.key + ".pub", auth)
        os.chmod(auth, 0o600)
        conf = os.path.join(self.dir, "sshd_config")
        with open(conf, "w") as f:
            f.write("\n".join([
                "Port %d" % self.port,
                "ListenAddress 127.0.0.1",
                "HostKey " + host,
                "PidFile " + os.path.join(self.dir, "sshd.pid"),
                "AuthorizedKeysFile " + auth,
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PubkeyAuthentication yes",
                "PermitRootLogin prohibit-password",
                "StrictModes no",
                "UsePAM no",
                "PrintMotd no",
                "LogLevel ERROR",
                "",
            ]))
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", exist_ok=True)   # privilege separation
        sshd = shutil.which("sshd") or "/usr/sbin/sshd"
        self.proc = subprocess.Popen([sshd, "-D", "-e", "-f", conf],
                                     stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(self.dir, "log"), "w"))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                break
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.05)
        else:
            pass
        if self.proc.poll() is not None:
            raise RuntimeError("sshd did not start: " +
                               open(os.path.join(self.dir, "log")).read())
        self.user = os.environ.get("USER") or \
            __import__("pwd").getpwuid(os.getuid()).pw_name
        self.host = "%s@127.0.0.1" % self.user

    def ssh_argv(self):
        """ssh and the options that reach this server."""
        return ["ssh", "-p", str(self.port), "-i", self.key,
                "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
                "-o", "IdentitiesOnly=yes"]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
