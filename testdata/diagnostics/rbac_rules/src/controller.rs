// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get
/// +kubebuilder:rbac:groups=apps,resources=deployments,urls=/metrics,verbs=get
/// +kubebuilder:rbac:urls=/metrics,namespace=ops,verbs=get
/// +kubebuilder:rbac:resources=pods,verbs=get
/// +kubebuilder:rbac:groups="",resources=pods,namespace=Ops,verbs=get
/// +kubebuilder:rbac:groups="",resources=pods,roleName=a/b,verbs=get
/// +kubebuilder:rbac:groups="",resources=pods
/// +kubebuilder:rbac:groups="",resources=pods,verb=get
pub struct Controller;
