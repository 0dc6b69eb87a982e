//! The generators crdgen has, one line each: the list both `Generator` (what options
//! select) and the generators' table (what each one is, in `generators`) are made from,
//! so that neither can name a generator the other lacks.

/// Hands the list to `$then!`: each generator's doc, its `Generator` variant, and the
/// module under `generators/` that defines it. The order is the order `all` lists them
/// in and their outputs are merged in.
macro_rules! generator_list {
    ($then:ident) => {
        $then! {
            /// `impl kube::Resource`, group/version constants and typed constructors.
            Register => register,
            /// Webhook conversion between a kind's versions, through its hub.
            Conversion => conversion,
            /// `impl Clone` for API types that do not derive it (Rust's deepcopy-gen).
            Clone => clone,
            /// Apply configurations for server-side apply (applyconfiguration-gen).
            ApplyConfiguration => applyconfig,
            /// The typed clientset (client-gen).
            Client => client,
            /// Listers over the informers' caches (lister-gen).
            Lister => lister,
            /// Shared informers and their factory (informer-gen).
            Informer => informer,
            /// CustomResourceDefinition YAML (controller-gen's `crd`).
            Crd => crd,
            /// Roles from `+kubebuilder:rbac` markers (controller-gen's `rbac`).
            Rbac => rbac,
            /// Webhook configurations from `+kubebuilder:webhook` markers
            /// (controller-gen's `webhook`).
            Webhook => webhook,
            /// The API reference: a Markdown page per group version and one HTML page
            /// (crd-ref-docs' job), with every validation the CRDs enforce.
            Docs => docs,
        }
    };
}
pub(crate) use generator_list;

macro_rules! declare_generator {
    ($($(#[$doc:meta])* $variant:ident => $module:ident,)*) => {
        /// A generator crdgen can run (`generate-groups`' first argument).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Generator {
            $($(#[$doc])* $variant,)*
        }

        impl Generator {
            /// Every generator, in the list's order.
            pub const ALL: [Generator; [$(stringify!($variant)),*].len()] =
                [$(Generator::$variant,)*];
        }
    };
}

generator_list!(declare_generator);
