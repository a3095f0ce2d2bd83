/**
 * Kubernetes object names as the API server validates them (apimachinery's validation package):
 * pods and nodes are named by DNS-1123 subdomains, namespaces by DNS-1123 labels. An event naming
 * anything else cannot refer to a real object, so it is rejected before any call is made.
 */
import { z } from 'zod';

/** IsDNS1123Label: at most 63 lowercase alphanumerics or '-', starting and ending alphanumeric. */
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** IsDNS1123Subdomain: at most 253 characters, dot-separated DNS-1123 labels. */
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const DnsSubdomainSchema = z
  .string()
  .min(1)
  .max(253, 'a DNS-1123 subdomain must be no more than 253 characters')
  .regex(
    DNS1123_SUBDOMAIN,
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
  );

export const DnsLabelSchema = z
  .string()
  .min(1)
  .max(63, 'a DNS-1123 label must be no more than 63 characters')
  .regex(
    DNS1123_LABEL,
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
  );
