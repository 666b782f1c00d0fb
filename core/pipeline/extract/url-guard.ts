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
 * a range of the allow-list covers it; cloud-metadata addresses never.
 */
export function refusal(addressText: string, hostname: string, list: AllowList): string | null {
	let address: Address
	try {
		address = parseAddress(addressText)
	} catch {
		return `${addressText} is not an IP address`
	}
	const shown = address.toString()
	if (METADATA_ADDRESSES.includes(address.toNormalizedString())) return `${shown} is a cloud-metadata address`
	if (list.ranges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits))) return null
	const range = address.range()
	if (range === 'unicast') return null
	if (hostAllowed(hostname, list)) return null
	return `${shown} is ${RANGE_NAMES[range] ?? `a special-purpose (${range})`} address`
}

/** The host of a URL without IPv6 brackets. */
export function bareHost(url: URL): string {
	return url.hostname.replace(/^\[|\]$/g, '')
}

export function isIpLiteral(host: string): boolean {
	return ipaddr.isValid(host)
}
