// Seeded pseudo-random numbers for the sandbox: the same seed always gives the same data.

/** Mixes numbers into one 32-bit seed (a murmur3-style finalizer), so (seed, index, stream) pick independent streams. */
function mixSeed(...parts: number[]): number {
	let hash = 0x9e3779b9;
	for (const part of parts) {
		hash = Math.imul(hash ^ (part >>> 0), 0x85ebca6b);
		hash ^= hash >>> 13;
		hash = Math.imul(hash, 0xc2b2ae35);
		hash ^= hash >>> 16;
		// Large numbers (timestamps) contribute their high bits too.
		hash = Math.imul(hash ^ Math.floor(part / 4294967296), 0x27d4eb2f);
	}
	return hash >>> 0;
}

/** mulberry32: small, fast and good enough for test data. */
export class Random {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0;
	}

	static of(...parts: number[]): Random {
		return new Random(mixSeed(...parts));
	}

	/** A float in [0, 1). */
	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	/** An integer in [min, max], both included. */
	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}

	chance(probability: number): boolean {
		return this.next() < probability;
	}

	pick<T>(items: readonly T[]): T {
		return items[Math.floor(this.next() * items.length)];
	}

	hex(length: number): string {
		let text = '';
		while (text.length < length)
			text += Math.floor(this.next() * 0x10000)
				.toString(16)
				.padStart(4, '0');
		return text.slice(0, length);
	}

	/** A version-4-shaped GUID. */
	guid(): string {
		const hex = this.hex(32);
		const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
		return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
	}
}
