// A TCP relay in front of the sandbox that delays every byte each way, so loopback behaves like a real network link.
import net from 'node:net';
import type { AddressInfo, Socket } from 'node:net';

export interface LatencyRelay {
	port: number;
	stop(): Promise<void>;
}

/**
 * Listens on 127.0.0.1:`port` and relays each connection to 127.0.0.1:`targetPort`. Every chunk arrives `oneWayMs`
 * after it was sent, in order, in both directions, and a new connection's first byte waits one more round trip, as
 * TCP's handshake makes it. So a TLS handshake pays its real round trips and a kept-alive connection does not.
 */
export async function startLatencyRelay(
	targetPort: number,
	oneWayMs: number,
	port = 0,
): Promise<LatencyRelay> {
	const timers = new Set<NodeJS.Timeout>();
	const sockets = new Set<Socket>();
	const later = (atMs: number, action: () => void) => {
		const timer = setTimeout(
			() => {
				timers.delete(timer);
				action();
			},
			Math.max(0, atMs - Date.now()),
		);
		timers.add(timer);
	};
	// One queue and one timer per direction: timers of different lengths may fire out of order, chunks must not.
	const delay = (from: Socket, to: Socket, firstByteAtMs: number) => {
		const queue: Array<{ atMs: number; deliver: () => void }> = [];
		let waiting = false;
		const drain = () => {
			waiting = false;
			while (queue.length && queue[0].atMs <= Date.now()) queue.shift()!.deliver();
			if (queue.length) wait();
		};
		const wait = () => {
			waiting = true;
			later(queue[0].atMs, drain);
		};
		let nextAtMs = firstByteAtMs;
		const push = (deliver: () => void) => {
			nextAtMs = Math.max(nextAtMs, Date.now() + oneWayMs);
			queue.push({ atMs: nextAtMs, deliver });
			if (!waiting) wait();
		};
		from.on('data', (chunk) => push(() => to.write(chunk)));
		from.on('end', () => push(() => to.end()));
		from.on('close', () => push(() => to.destroy()));
		from.on('error', () => to.destroy());
	};
	const track = (socket: Socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	};

	const relay = net.createServer((client) => {
		const server = net.connect(targetPort, '127.0.0.1');
		track(client);
		track(server);
		const connectedAtMs = Date.now();
		delay(client, server, connectedAtMs + 3 * oneWayMs);
		delay(server, client, connectedAtMs);
	});
	await new Promise<void>((resolve, reject) => {
		relay.once('error', reject);
		relay.listen(port, '127.0.0.1', () => {
			relay.off('error', reject);
			resolve();
		});
	});
	return {
		port: (relay.address() as AddressInfo).port,
		stop: () =>
			new Promise<void>((resolve) => {
				for (const timer of timers) clearTimeout(timer);
				timers.clear();
				for (const socket of sockets) socket.destroy();
				relay.close(() => resolve());
			}),
	};
}
