//! Where an input format keeps each field a rule may point at, relative to
//! the record. Each adapter gives its records the table of its format, so
//! facts name fields and take their paths from the model: a finding never
//! falls back to the record's start because a path of another format did
//! not exist.

/// A load-balancing pool.
#[derive(Debug)]
pub struct PoolFields {
    pub id: &'static str,
    pub name: &'static str,
    pub notification_email: &'static str,
    pub notification_filter: &'static str,
}

/// A notification policy.
#[derive(Debug)]
pub struct PolicyFields {
    pub id: &'static str,
    pub name: &'static str,
    pub alert_type: &'static str,
    pub enabled: &'static str,
    pub mechanisms: &'static str,
    pub filters: &'static str,
    pub pool_id: &'static str,
}

/// An issued certificate's fields, relative to the certificate (itself at
/// the record (uploaded), or at [`PackFields::certificates`] and its index (a
/// pack's)); a custom hostname's are whole paths ([`HostnameFields::issued`]).
#[derive(Debug)]
pub struct CertificateFields {
    pub id: &'static str,
    pub issuer: &'static str,
    pub signature: &'static str,
    pub bundle_method: &'static str,
    pub uploaded_on: &'static str,
    pub expires_on: &'static str,
    pub status: &'static str,
}

/// An uploaded (custom) certificate.
#[derive(Debug)]
pub struct CustomCertificateFields {
    pub hosts: &'static str,
    pub zone_id: &'static str,
    /// The PEM chain.
    pub certificate: &'static str,
    pub issued: CertificateFields,
}

/// A certificate pack.
#[derive(Debug)]
pub struct PackFields {
    pub id: &'static str,
    pub pack_type: &'static str,
    pub hosts: &'static str,
    pub certificate_authority: &'static str,
    pub status: &'static str,
    /// The list of its certificates, each at its index there.
    pub certificates: &'static str,
    pub issued: CertificateFields,
}

impl PackFields {
    /// Where the pack's `index`th certificate is, relative to the record.
    pub fn certificate(&self, index: usize) -> String {
        format!("{}/{index}", self.certificates)
    }
}

/// A custom hostname.
#[derive(Debug)]
pub struct HostnameFields {
    pub id: &'static str,
    pub hostname: &'static str,
    pub certificate_authority: &'static str,
    pub ssl_method: &'static str,
    pub ssl_type: &'static str,
    pub wildcard: &'static str,
    /// Where the uploaded chain would be when none is exported.
    pub custom_certificate: &'static str,
    /// The certificate's own object (`ssl`), for findings about it as a whole.
    pub certificate: &'static str,
    /// The certificate's fields in the record, under `certificate` (whole
    /// paths, not joined again each time a rule or message asks).
    pub issued: CertificateFields,
}

/// Total TLS or Universal SSL settings.
#[derive(Debug)]
pub struct SettingFields {
    pub enabled: &'static str,
    pub certificate_authority: &'static str,
}

/// Where one input format keeps the fields of every kind of record it
/// holds: an adapter hands each record over with its layout.
#[derive(Debug)]
pub struct Layout {
    pub pool: &'static PoolFields,
    pub policy: &'static PolicyFields,
    pub custom_certificate: &'static CustomCertificateFields,
    pub pack: &'static PackFields,
    pub hostname: &'static HostnameFields,
    pub setting: &'static SettingFields,
    /// A DNS record's `data` object (CAA as `{flags, tag, value}`).
    pub dns_data: &'static str,
}

/// A list's paging, relative to its envelope.
#[derive(Debug)]
pub struct ListFields {
    pub paging: &'static str,
    pub total_count: &'static str,
    pub total_pages: &'static str,
}

/// `base` and a field relative to it, as one path.
pub fn join(base: &str, field: &str) -> String {
    // Not `format!`: made for facts of every subject, where the formatting
    // machinery cost ten times the copy.
    [base, field].concat()
}

// The API's layout: where its exports keep each field. Other formats
// (Terraform) start from it and move what they keep elsewhere.

pub static POOL: PoolFields = PoolFields {
    id: "/id",
    name: "/name",
    notification_email: "/notification_email",
    notification_filter: "/notification_filter",
};

pub static POLICY: PolicyFields = PolicyFields {
    id: "/id",
    name: "/name",
    alert_type: "/alert_type",
    enabled: "/enabled",
    mechanisms: "/mechanisms",
    filters: "/filters",
    pool_id: "/filters/pool_id",
};

/// An issued certificate's fields, relative to the certificate's object.
pub const ISSUED: CertificateFields = CertificateFields {
    id: "/id",
    issuer: "/issuer",
    signature: "/signature",
    bundle_method: "/bundle_method",
    uploaded_on: "/uploaded_on",
    expires_on: "/expires_on",
    status: "/status",
};

pub static CUSTOM_CERTIFICATE: CustomCertificateFields = CustomCertificateFields {
    hosts: "/hosts",
    zone_id: "/zone_id",
    certificate: "/certificate",
    issued: ISSUED,
};

pub static PACK: PackFields = PackFields {
    id: "/id",
    pack_type: "/type",
    hosts: "/hosts",
    certificate_authority: "/certificate_authority",
    status: "/status",
    certificates: "/certificates",
    issued: ISSUED,
};

pub static HOSTNAME: HostnameFields = HostnameFields {
    id: "/id",
    hostname: "/hostname",
    certificate_authority: "/ssl/certificate_authority",
    ssl_method: "/ssl/method",
    ssl_type: "/ssl/type",
    wildcard: "/ssl/wildcard",
    custom_certificate: "/ssl/custom_certificate",
    certificate: "/ssl",
    issued: CertificateFields {
        id: "/ssl/id",
        issuer: "/ssl/issuer",
        signature: "/ssl/signature",
        bundle_method: "/ssl/bundle_method",
        uploaded_on: "/ssl/uploaded_on",
        expires_on: "/ssl/expires_on",
        status: "/ssl/status",
    },
};

pub static SETTING: SettingFields = SettingFields {
    enabled: "/enabled",
    certificate_authority: "/certificate_authority",
};

/// The API's exports: every field where the API puts it.
pub static LAYOUT: Layout = Layout {
    pool: &POOL,
    policy: &POLICY,
    custom_certificate: &CUSTOM_CERTIFICATE,
    pack: &PACK,
    hostname: &HOSTNAME,
    setting: &SETTING,
    dns_data: "/data",
};
