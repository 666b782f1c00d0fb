import { lookup } from 'node:dns/promises'
import ipaddr from 'ipaddr.js'

type Address = ipaddr.IPv4 | ipaddr.IPv6

/** Hosts and ranges a self-hoster allowed although they are not public (MEMORY_URL_ALLOWLIST). */
export interface AllowList {
	/** Lower-case host names; `*.example.com` allows every subdomain. */
	hosts: string[]
	ranges: [Address, number][]
}

/** Resolves a host name to its addresses (all of them, v4 and v6). */
export type Resolver = (hostname: string) => Promise<string[]>

export const systemResolver: Resolver = async (hostname) =>
	(await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address)

/**
 * Instance-metadata endpoints of cloud providers (AWS, ECS, GCP, Azure, Alibaba, Oracle): refused even when the
 * allow-list covers them, since they hand out credentials.
 */
const METADATA_ADDRESSES = [
	'169.254.169.254',
	'169.254.170.2',
	'169.254.170.23',
	'fd00:ec2::254',
	'100.100.100.200',
	'192.0.0.192',
	'168.63.129.16',
].map((address) => ipaddr.parse(address).toNormalizedString())

const HOST_ENTRY = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/

/** Parses allow-list entries; an entry that is neither a host name, an address nor a CIDR is an error. */
export function parseAllowList(entries: string[]): AllowList {
	const list: AllowList = { hosts: [], ranges: [] }
	for (const raw of entries) {
		const entry = raw
			.trim()
			.toLowerCase()
			.replace(/^\[|\]$/g, '')
		if (!entry) continue
		if (entry.includes('/')) {
			try {
				list.ranges.push(ipaddr.parseCIDR(entry))
			} catch {
				throw new Error(`MEMORY_URL_ALLOWLIST: "${raw}" is not a valid CIDR`)
			}
		} else if (ipaddr.isValid(entry)) {
			const address = ipaddr.parse(entry)
			list.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128])
		} else if (HOST_ENTRY.test(entry)) {
			list.hosts.push(entry)
		} else {
			throw new Error(`MEMORY_URL_ALLOWLIST: "${raw}" is not a host name, an address or a CIDR`)
		}
	}
	return list
}

export function hostAllowed(hostname: string, list: AllowList): boolean {
	const host = hostname.toLowerCase().replace(/\.$/, '')
	return list.hosts.some((entry) =>
		entry.startsWith('*.') ? host.endsWith(entry.slice(1)) && host.length > entry.length - 1 : host === entry,
	)
}

/** An IPv4 address written as IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4 address it is. */
function parseAddress(text: string): Address {
	const address = ipaddr.parse(text)
	if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
		return (address as ipaddr.IPv6).toIPv4Address()
	}
	return address
}

const RANGE_NAMES: Record<string, string> = {
	loopback: 'a loopback',
	private: 'a private',
	linkLocal: 'a link-local',
	uniqueLocal: 'a unique-local (private IPv6)',
	carrierGradeNat: 'a carrier-grade NAT (shared)',
	unspecified: 'an unspecified',
	broadcast: 'a broadcast',
	multicast: 'a multicast',
	reserved: 'a reserved',
}

/**
 * Why an address may not be fetched, or null when it may: only public unicast addresses, unless the host name or
 * a range of the allow-list covers it; cloud-metadata addresses never. An IPv6 address that carries an IPv4 address
 * (NAT64, 6to4, Teredo, IPv4-compatible) is judged as the IPv4 address(es) it reaches.
 */
export function refusal(addressText: string, hostname: string, list: AllowList): string | null {
	let address: Address
	try {
		address = parseAddress(addressText)
	} catch {
		return `${addressText} is not an IP address`
	}
	if (address.kind() === 'ipv6') {
		const carried = embeddedIPv4(address as ipaddr.IPv6)
		if (carried.length > 0 && !inAllowedRange(address, list)) {
			for (const ipv4 of carried) {
				const reason = judge(ipv4, hostname, list)
				if (reason) return `${address.toString()} carries ${ipv4.toString()}: ${reason}`
			}
			return null
		}
	}
	return judge(address, hostname, list)
}

function judge(address: Address, hostname: string, list: AllowList): string | null {
	const shown = address.toString()
	if (METADATA_ADDRESSES.includes(address.toNormalizedString())) return `${shown} is a cloud-metadata address`
	if (inAllowedRange(address, list)) return null
	const range = address.range()
	if (range === 'unicast') return null
	if (hostAllowed(hostname, list)) return null
	return `${shown} is ${RANGE_NAMES[range] ?? `a special-purpose (${range})`} address`
}

const inAllowedRange = (address: Address, list: AllowList) =>
	list.ranges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits))

const ipv4 = (bytes: number[]) => new ipaddr.IPv4(bytes)

/**
 * The IPv4 addresses an IPv6 address leads to: IPv4-compatible `::a.b.c.d` (`::/96`), IPv4-translated
 * `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48` (both RFC 6052 layouts), 6to4 `2002::/16`, and Teredo
 * `2001::/32` (its server and its obfuscated client). IPv4-mapped addresses are turned into IPv4 before this.
 */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
	const b = address.toByteArray()
	const word = (i: number) => (b[i]! << 8) | b[i + 1]!
	const last32 = () => ipv4(b.slice(12, 16))
	if (b.slice(0, 12).every((byte) => byte === 0)) return [last32()]
	if (b.slice(0, 8).every((byte) => byte === 0) && word(8) === 0xffff && word(10) === 0) return [last32()]
	if (word(0) === 0x64 && word(2) === 0xff9b && word(4) === 0 && b.slice(6, 12).every((byte) => byte === 0)) {
		return [last32()]
	}
	if (word(0) === 0x64 && word(2) === 0xff9b && word(4) === 1) {
		// A local-use NAT64 prefix of any length up to /96: check the /48 layout and the /96 layout.
		return [ipv4([b[6]!, b[7]!, b[9]!, b[10]!]), last32()]
	}
	if (word(0) === 0x2002) return [ipv4(b.slice(2, 6))]
	if (word(0) === 0x2001 && word(2) === 0)
		return [ipv4(b.slice(4, 8)), ipv4(b.slice(12, 16).map((byte) => byte ^ 0xff))]
	return []
}

/** The host of a URL without IPv6 brackets. */
export function bareHost(url: URL): string {
	return url.hostname.replace(/^\[|\]$/g, '')
}

export function isIpLiteral(host: string): boolean {
	return ipaddr.isValid(host)
}
