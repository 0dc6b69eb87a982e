//! Reconciles Examples into Deployments and StatefulSets.

/// Owns the Examples and what they make; markers stand above the controller, as in
/// kubebuilder.
///
/// +kubebuilder:rbac:groups=bcrds.example.com,resources=examples,verbs=get;list;watch;update;patch
/// +kubebuilder:rbac:groups=bcrds.example.com,resources=examples/status,verbs=get;update;patch
/// +kubebuilder:rbac:groups=bcrds.example.com,resources=examples/finalizers,verbs=update
/// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
/// +kubebuilder:rbac:groups=core,resources=events,verbs=create;patch
/// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=patch;create
/// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;list
/// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=example-system,resources=leases,verbs=get;create;update
/// +kubebuilder:rbac:groups="",namespace=example-system,resources=secrets,resourceNames=webhook-cert,verbs=get;watch
/// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list,roleName=pod-reader
pub struct ExampleController;

impl ExampleController {
    /// Markers are read wherever a doc comment stands.
    ///
    /// +kubebuilder:rbac:groups=apps,resources=statefulsets,verbs=list;get;watch;create;update;patch;delete
    pub fn sync(&self) {
        /// Even on a statement.
        /// +kubebuilder:rbac:groups=bcrds.example.com,resources=examples,verbs=delete
        let _deleted = ();
    }
}
